//===- ExportDot.cpp - draw a layer graph with its Q/DQ nodes -------------===//

#include "QuantQDQ/Target/Dot.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/GraphWriter.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
/// Writes one function; node ids are numbers in program order.
class DotWriter {
public:
  explicit DotWriter(llvm::raw_ostream &os) : os(os) {}

  void write(func::FuncOp func) {
    os << "digraph \"" << llvm::DOT::EscapeString(func.getName().str())
       << "\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", "
          "fontsize=10];\n";
    for (BlockArgument arg : func.getArguments())
      node(arg, "input " + std::to_string(arg.getArgNumber()),
           "shape=ellipse, style=filled, fillcolor=\"#e8e8e8\"");
    func.walk([&](Operation *op) {
      if (op == func.getOperation())
        return;
      // Weights and other constants are drawn only when quantized.
      if (op->hasTrait<OpTrait::ConstantLike>())
        return;
      visit(op);
    });
    os << "}\n";
  }

private:
  void visit(Operation *op) {
    std::string label, style;
    if (auto layer = dyn_cast<QDQLayerOpInterface>(op)) {
      StringRef name = layer.getLayerName();
      label = (name.empty() ? StringRef("(unnamed)") : name).str() + "\n" +
              layer.getLayerClass().str();
      style = "shape=box, style=\"rounded,filled\", fillcolor=\"#dbe8f7\"";
    } else if (auto quantize = dyn_cast<QuantizeOp>(op)) {
      label = "Q " + describe(quantize.getQuantizer());
      if (Operation *def = quantize.getInput().getDefiningOp();
          def && def->hasTrait<OpTrait::ConstantLike>())
        label = "weight\n" + label;
      style = "shape=box, style=filled, fillcolor=\"#f7c873\", fontsize=8";
    } else if (auto dequantize = dyn_cast<DequantizeOp>(op)) {
      label = "DQ";
      style = "shape=box, style=filled, fillcolor=\"#9fd49f\", fontsize=8";
    } else if (auto fake = dyn_cast<FakeQuantOp>(op)) {
      label = "FQ " + describe(fake.getQuantizer());
      style = "shape=box, style=filled, fillcolor=\"#f7c873\", fontsize=8";
    } else if (isa<func::ReturnOp>(op)) {
      label = "output";
      style = "shape=ellipse, style=filled, fillcolor=\"#e8e8e8\"";
    } else {
      label = op->getName().getStringRef().str();
      style = "shape=box, style=dashed";
    }
    unsigned id = nextId++;
    os << "  n" << id << " [label=\"" << llvm::DOT::EscapeString(label)
       << "\", " << style << "];\n";
    for (Value operand : op->getOperands()) {
      auto it = ids.find(operand);
      if (it == ids.end())
        continue;
      os << "  n" << it->second << " -> n" << id << ";\n";
    }
    for (Value result : op->getResults())
      ids[result] = id;
  }

  void node(Value value, const std::string &label, StringRef style) {
    unsigned id = nextId++;
    ids[value] = id;
    os << "  n" << id << " [label=\"" << llvm::DOT::EscapeString(label)
       << "\", " << style << "];\n";
  }

  static std::string describe(QuantizerAttr q) {
    std::string text = q.isFloatStorage()
                           ? stringifyStorageFormat(q.getStorage()).str()
                           : "int" + std::to_string(q.getBits());
    if (q.getAxis())
      text += " axis " + std::to_string(*q.getAxis());
    if (q.isBlocked())
      text += " block " + std::to_string(*q.getBlockSize());
    return text;
  }

  llvm::raw_ostream &os;
  llvm::DenseMap<Value, unsigned> ids;
  unsigned nextId = 0;
};
} // namespace

LogicalResult mlir::quant_qdq::exportToDot(Operation *op,
                                           llvm::raw_ostream &os) {
  bool any = false;
  op->walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    DotWriter(os).write(func);
    any = true;
  });
  if (!any)
    return op->emitError("no function with a body to draw");
  return success();
}

void mlir::quant_qdq::registerToDotTranslation(ModelImporter importModel,
                                               ModelFileTest isModelFile) {
  // One reader for the process, as there is one registration.
  static ModelImporter importer;
  static ModelFileTest isModel;
  importer = importModel;
  isModel = isModelFile;
  TranslateRegistration registration(
      "qdq-to-dot",
      "Draw each function's layer graph and its Q/DQ nodes as Graphviz DOT "
      "(from MLIR, or from a model file such as .onnx)",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         llvm::raw_ostream &os, MLIRContext *context) -> LogicalResult {
        DialectRegistry registry;
        registry.insert<QuantQDQDialect, func::FuncDialect,
                        arith::ArithDialect>();
        context->appendDialectRegistry(registry);
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        OwningOpRef<ModuleOp> module =
            importer && isModel && isModel(buffer->getBufferIdentifier())
                ? importer(buffer->getMemBufferRef(), context)
                : parseSourceFile<ModuleOp>(*sourceMgr, context);
        if (!module)
          return failure();
        return exportToDot(*module, os);
      });
}
