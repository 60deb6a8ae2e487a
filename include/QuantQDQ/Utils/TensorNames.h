//===- TensorNames.h - one unique, stable name per tensor -------*- C++ -*-===//
//
// Calibration tables, reports, TensorRT caches and ONNX export all name
// tensors. They read the names given here, once, and stored in the IR, so
// that a name in a calibration table is the name of the same tensor in the
// exported model, and two tensors never share one.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_UTILS_TENSORNAMES_H
#define QUANTQDQ_UTILS_TENSORNAMES_H

#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace mlir::quant_qdq {

/// The argument and result attribute holding a graph input's or output's
/// name (the ONNX importer sets it to the ONNX name).
inline constexpr llvm::StringLiteral kTensorNameAttr = "quant_qdq.onnx.name";

/// The op attribute holding the names of an op's results, one string per
/// result.
inline constexpr llvm::StringLiteral kResultNamesAttr = "quant_qdq.tensor_names";

/// Hands out names unique within one scope (a function's tensors, a
/// graph's nodes).
class UniqueNames {
public:
  /// `base` if free, else `base_1`, `base_2`, ...
  std::string claim(llvm::StringRef base) {
    std::string name = base.str();
    for (unsigned i = 1; !used.insert(name).second; ++i)
      name = (base + "_" + llvm::Twine(i)).str();
    return name;
  }
  /// Sets `name` aside for an owner that claims it later.
  void reserve(llvm::StringRef name) { reserved.insert(name); }
  /// Like claim, but a reserved name goes only to its `owner`.
  std::string claimReserved(llvm::StringRef base, bool owner) {
    std::string name = base.str();
    for (unsigned i = 1;
         (!owner && reserved.contains(name)) || !used.insert(name).second;
         ++i) {
      name = (base + "_" + llvm::Twine(i)).str();
      owner = false;
    }
    return name;
  }

private:
  llvm::StringSet<> used, reserved;
};

/// Names every graph tensor of `func` (its arguments and the results of the
/// ops of its body but constants) that has no name yet, and makes the names
/// unique:
/// - an argument: its kTensorNameAttr, else `input_<i>`;
/// - a returned result: its function result's kTensorNameAttr, else
///   `output_<i>` (graph outputs keep their names);
/// - any other result: `<base>_output_<i>`, where `<base>` is the layer's
///   name made unique among layers (a second `act` is `act_1`, as export
///   names nodes), else the op's location name (an imported node's name),
///   else `<class or op>_<k>`; but an unnamed Q/DQ result is named after the
///   tensor it stands for: `x_quantized`, `x_dequantized` (of
///   `x_quantized`), `x_fake_quantized`.
/// Names already stored are kept; of two equal ones the later gets a `_<n>`
/// suffix. Idempotent. Constants are weights, which export names after
/// their locations.
void nameTensors(FunctionOpInterface func);

/// The name nameTensors gave `value`, or an empty string.
llvm::StringRef getTensorName(Value value);

/// The name a location carries (a NameLoc, possibly inside a FusedLoc): an
/// imported node's or initializer's name. Empty when it has none.
llvm::StringRef getLocationName(Location loc);

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_UTILS_TENSORNAMES_H
