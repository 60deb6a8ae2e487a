//===- QuantizerAttrTest.cpp - storage ranges of #quant_qdq.quantizer -----===//

#include "QuantQDQ/IR/QuantQDQDialect.h"
#include "QuantQDQ/IR/QuantQDQOps.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::quant_qdq;

namespace {
class QuantizerAttrTest : public ::testing::Test {
protected:
  QuantizerAttrTest() { context.loadDialect<QuantQDQDialect>(); }
  QuantizerAttr get(unsigned bits, bool isSigned, bool narrow) {
    return QuantizerAttr::get(&context, bits, isSigned, narrow,
                              /*symmetric=*/true, std::nullopt,
                              std::optional<CalibrationMethod>(),
                              std::optional<int64_t>(), StorageFormat::Int);
  }
  MLIRContext context;
};
} // namespace

TEST_F(QuantizerAttrTest, DefaultIsTensorRTInt8) {
  auto q = QuantizerAttr::get(&context);
  EXPECT_EQ(q.getBits(), 8u);
  EXPECT_TRUE(q.getIsSigned());
  EXPECT_TRUE(q.getNarrowRange());
  EXPECT_TRUE(q.getSymmetric());
  EXPECT_FALSE(q.isPerAxis());
  EXPECT_EQ(q.getQMin(), -127);
  EXPECT_EQ(q.getQMax(), 127);
  EXPECT_EQ(q.getStorageMin(), -128);
}

TEST_F(QuantizerAttrTest, Ranges) {
  EXPECT_EQ(get(8, true, false).getQMin(), -128);
  EXPECT_EQ(get(8, false, false).getQMin(), 0);
  EXPECT_EQ(get(8, false, false).getQMax(), 255);
  EXPECT_EQ(get(8, false, true).getQMin(), 1);
  EXPECT_EQ(get(4, true, true).getQMin(), -7);
  EXPECT_EQ(get(4, true, true).getQMax(), 7);
  EXPECT_EQ(get(16, true, false).getQMin(), -32768);
  EXPECT_EQ(get(16, false, false).getQMax(), 65535);
  EXPECT_EQ(get(2, true, true).getQMin(), -1);
  EXPECT_EQ(get(2, true, true).getQMax(), 1);
}

TEST_F(QuantizerAttrTest, WithAxisKeepsTheRest) {
  auto q = get(4, false, false).withAxis(0);
  EXPECT_EQ(q.getAxis(), std::optional<int64_t>(0));
  EXPECT_EQ(q.getBits(), 4u);
  EXPECT_FALSE(q.getIsSigned());
  EXPECT_FALSE(q.withAxis(std::nullopt).isPerAxis());
}
