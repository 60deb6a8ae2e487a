//===- SupportedLayersDocTest.cpp - docs/SupportedLayers.md is true -------===//
//
// Reads the table of docs/SupportedLayers.md and compares every row with the
// op's QDQLayerOpInterface answers, for every op of the dialect (the list
// comes from ODS, so a new layer op without a row fails here).
//
//===----------------------------------------------------------------------===//

#include "QuantQDQ/IR/QuantQDQOps.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
struct Row {
  std::string layerClass;
  bool input, weight, passThrough;
};

std::string strip(StringRef cell) { return cell.trim().trim("`").str(); }

llvm::StringMap<Row> readTable() {
  llvm::StringMap<Row> rows;
  auto buffer = llvm::MemoryBuffer::getFile(QUANTQDQ_SUPPORTED_LAYERS_DOC);
  if (!buffer)
    return rows;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (StringRef line : lines) {
    if (!line.starts_with("| `quant_qdq."))
      continue;
    SmallVector<StringRef> cells;
    line.trim().trim('|').split(cells, '|');
    if (cells.size() != 5)
      continue;
    rows[strip(cells[0])] = Row{strip(cells[1]), strip(cells[2]) == "yes",
                                strip(cells[3]) == "yes",
                                strip(cells[4]) == "yes"};
  }
  return rows;
}

template <typename OpT>
void checkOp(llvm::StringMap<Row> &rows, unsigned &layerOps) {
  if constexpr (OpT::template hasTrait<QDQLayerOpInterface::Trait>()) {
    ++layerOps;
    std::string name = OpT::getOperationName().str();
    auto it = rows.find(name);
    ASSERT_NE(it, rows.end()) << name << " has no row in SupportedLayers.md";
    StringRef expectedClass = OpT::getDefaultLayerClass();
    if (!expectedClass.empty())
      EXPECT_EQ(it->second.layerClass, expectedClass) << name;
    EXPECT_EQ(it->second.input, OpT::kQuantizeInputByDefault) << name;
    EXPECT_EQ(it->second.weight, OpT::kQuantizeWeightByDefault) << name;
    EXPECT_EQ(it->second.passThrough, OpT::kPassThrough) << name;
    rows.erase(it);
  }
}

template <typename... OpTs>
void checkAll(llvm::StringMap<Row> &rows, unsigned &layerOps) {
  (checkOp<OpTs>(rows, layerOps), ...);
}
} // namespace

TEST(SupportedLayersDoc, TableMatchesTheOps) {
  llvm::StringMap<Row> rows = readTable();
  ASSERT_FALSE(rows.empty()) << "cannot read " << QUANTQDQ_SUPPORTED_LAYERS_DOC;
  unsigned layerOps = 0;
  checkAll<
#define GET_OP_LIST
#include "QuantQDQ/IR/QuantQDQOps.cpp.inc"
      >(rows, layerOps);
  EXPECT_GT(layerOps, 15u);
  for (const auto &row : rows)
    ADD_FAILURE() << "SupportedLayers.md lists " << row.getKey().str()
                  << ", which is not a layer op";
}
