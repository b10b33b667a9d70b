// Argument positions of PyTorch's attention and convolution ops, checked against the arguments real
// traces recorded ("Input Dims" and "Concrete Inputs" copied from the op events named below).

#include "core/analysis/metrics/OpSchemas.h"

#include <gtest/gtest.h>

#include "core/analysis/metrics/OpCost.h"

namespace chokepoint::analysis {
namespace {

struct RecordedAttentionCall {
    const char* trace;
    const char* op;
    const char* concreteInputs;
    bool backward;
    bool causal;
};

// PyTorch 2.11 on an H100 (shared/traces/h100/gpt-kineto: a causal GPT) and TraceLens' BERT trace
// (not causal).
const RecordedAttentionCall kRecordedCalls[] = {
    {"gpt-kineto", "aten::scaled_dot_product_attention", R"(["", "", "", "", "0.", "True", "", "False"])",
     false, true},
    {"gpt-kineto", "aten::_scaled_dot_product_cudnn_attention",
     R"(["", "", "", "", "True", "0.", "True", "False", ""])", false, true},
    {"gpt-kineto", "aten::_cudnn_attention_forward",
     R"(["", "", "", "", "", "", "1024", "1024", "True", "0.", "True", "False", ""])", false, true},
    {"gpt-kineto", "aten::_scaled_dot_product_cudnn_attention_backward",
     R"(["", "", "", "", "", "", "", "", "", "", "", "1024", "1024", "0.", "True", ""])", true, true},
    {"gpt-kineto", "aten::_cudnn_attention_backward",
     R"(["", "", "", "", "", "", "", "", "", "", "", "1024", "1024", "0.", "True", ""])", true, true},
    {"tracelens-h100 bert", "aten::scaled_dot_product_attention",
     R"(["", "", "", "", "0.", "False", "", "False"])", false, false},
    {"tracelens-h100 bert", "aten::_scaled_dot_product_flash_attention",
     R"(["", "", "", "0.", "False", "False", "0.125"])", false, false},
    {"tracelens-h100 bert", "aten::_flash_attention_forward",
     R"(["", "", "", "", "", "141", "141", "0.", "False", "False", "0.125", "", "", "", ""])", false, false},
};

TEST(OpSchemas, RecordedAttentionCallsGiveTheirCausalFlag) {
    for (const RecordedAttentionCall& call : kRecordedCalls) {
        SCOPED_TRACE(std::string(call.trace) + " " + call.op);
        const std::vector<std::string> concrete = *parseTypes(call.concreteInputs);
        const std::optional<AttentionArguments> at = attentionArguments(call.op, concrete.size());
        ASSERT_TRUE(at.has_value());
        EXPECT_EQ(at->backward, call.backward);
        ASSERT_TRUE(at->mask.has_value());
        ASSERT_EQ(at->maskKind, AttentionMaskArgument::IsCausal);
        EXPECT_EQ(parseBool(concrete[*at->mask]), call.causal);
    }
}

TEST(OpSchemas, AttentionOpsByName) {
    // The internal flash and memory-efficient kernels' ops take [B, S, H, D]; backward ops start
    // with the output's gradient.
    const std::optional<AttentionArguments> flashBackward =
        attentionArguments("aten::_flash_attention_backward", 17);
    ASSERT_TRUE(flashBackward.has_value());
    EXPECT_TRUE(flashBackward->backward);
    EXPECT_TRUE(flashBackward->sequenceBeforeHeads);
    EXPECT_EQ(flashBackward->query, 1u);
    EXPECT_EQ(flashBackward->key, 2u);
    EXPECT_EQ(flashBackward->value, 3u);
    EXPECT_EQ(flashBackward->mask, 11u);
    const std::optional<AttentionArguments> efficient =
        attentionArguments("aten::_efficient_attention_forward", 14);
    ASSERT_TRUE(efficient.has_value());
    EXPECT_EQ(efficient->maskKind, AttentionMaskArgument::CustomMaskType);
    EXPECT_EQ(efficient->mask, 9u);
    // An argument count no known schema has: the op is known, its mask position is not.
    const std::optional<AttentionArguments> other = attentionArguments("aten::_cudnn_attention_backward", 12);
    ASSERT_TRUE(other.has_value());
    EXPECT_TRUE(other->backward);
    EXPECT_FALSE(other->mask.has_value());
    EXPECT_FALSE(attentionArguments("aten::mm", 2).has_value());
}

TEST(OpSchemas, ConvolutionArgumentsByNameAndCount) {
    const std::optional<ConvForwardArguments> convolution = convForwardArguments("aten::convolution", 9);
    ASSERT_TRUE(convolution.has_value());
    EXPECT_EQ(convolution->stride, 3u);
    EXPECT_EQ(convolution->padding, 4u);
    EXPECT_EQ(convolution->transposed, 6u);
    // cuDNN's op takes padding before stride, and no bias.
    const std::optional<ConvForwardArguments> cudnn = convForwardArguments("aten::cudnn_convolution", 9);
    ASSERT_TRUE(cudnn.has_value());
    EXPECT_EQ(cudnn->padding, 2u);
    EXPECT_EQ(cudnn->stride, 3u);
    EXPECT_FALSE(cudnn->transposed.has_value());
    EXPECT_FALSE(convForwardArguments("aten::convolution", 5).has_value());
    EXPECT_FALSE(convForwardArguments("aten::addmm", 5).has_value());
}

TEST(OpSchemas, ParsesRecordedScalars) {
    EXPECT_EQ(parseIntList("[2, 2]"), (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(parseIntList(" [1,0, 3] "), (std::vector<std::int64_t>{1, 0, 3}));
    EXPECT_EQ(parseIntList("[]"), (std::vector<std::int64_t>{}));
    EXPECT_EQ(parseIntList("2"), (std::vector<std::int64_t>{2}));
    EXPECT_FALSE(parseIntList("").has_value());
    EXPECT_FALSE(parseIntList("[1, ]").has_value());
    EXPECT_FALSE(parseIntList("[1.5]").has_value());
    EXPECT_FALSE(parseIntList("same").has_value());
    EXPECT_FALSE(parseIntList("[2, 2").has_value());
    EXPECT_FALSE(parseIntList("[99999999999999999999]").has_value());
    EXPECT_EQ(parseBool("True"), true);
    EXPECT_EQ(parseBool("False"), false);
    EXPECT_FALSE(parseBool("1").has_value());
    EXPECT_FALSE(parseBool("").has_value());
    EXPECT_EQ(parseInt("-3"), -3);
    EXPECT_FALSE(parseInt("0.").has_value());
}

}  // namespace
}  // namespace chokepoint::analysis
