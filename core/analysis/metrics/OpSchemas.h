#pragma once
// Which recorded argument of a framework op is what, by op name: the positions in PyTorch's op
// schemas (aten/src/ATen/native/native_functions.yaml) that the FLOP formulas of OpCost need. Kineto
// records every argument of the schema, in order, in "Input Dims", "Input type" and, since PyTorch
// 2.1, "Concrete Inputs" (the scalar arguments' values: "True", "[2, 2]", "0.", "" for a tensor).
//
// Schemas change between PyTorch versions, so a position is used only when the op recorded the
// argument count its row names and the value there has the expected form; otherwise the argument is
// treated as not recorded.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chokepoint::analysis {

// aten::convolution_backward (grad_output, input, weight, ...) since PyTorch 1.11;
// aten::cudnn_/miopen_convolution_backward (input, grad_output, weight, ...) before. nullopt for any
// other op.
struct ConvBackwardInputs {
    std::size_t gradOutput = 0;
    std::size_t input = 0;
    std::size_t weight = 0;
};
std::optional<ConvBackwardInputs> convBackwardInputs(std::string_view opName);

// A forward convolution's stride, padding, dilation and transposed flag, where its schema has them.
struct ConvForwardArguments {
    std::size_t stride = 0;
    std::size_t padding = 0;
    std::size_t dilation = 0;
    std::optional<std::size_t> transposed;  // aten::convolution and aten::_convolution only
};
std::optional<ConvForwardArguments> convForwardArguments(std::string_view opName, std::size_t argumentCount);

// An attention op's tensors and mask. Forward ops take (query, key, value, ...); backward ops
// (grad_out, query, key, value, ...). The public ops take [B, H, S, D]; the internal flash and
// memory-efficient kernels' ops take [B, S, H, D].
enum class AttentionMaskArgument : std::uint8_t {
    IsCausal,        // bool is_causal: the causal mask aligned to the top left
    CustomMaskType,  // int custom_mask_type: 0 none, 1 causal from the top left, 2 from the bottom right
};
struct AttentionArguments {
    bool backward = false;
    bool sequenceBeforeHeads = false;  // [B, S, H, D]
    std::size_t query = 0;
    std::size_t key = 1;
    std::size_t value = 2;
    std::optional<std::size_t> mask;  // position of the mask argument, when this schema is known
    AttentionMaskArgument maskKind = AttentionMaskArgument::IsCausal;
};
// nullopt for an op that is not one of PyTorch's attention ops. `mask` is set only when
// `argumentCount` matches a known schema of the op.
std::optional<AttentionArguments> attentionArguments(std::string_view opName, std::size_t argumentCount);

// Recorded scalar values ("Concrete Inputs"): an integer list "[2, 2]" (a lone integer "2" is a list
// of one), a bool "True"/"False", an integer "1".
std::optional<std::vector<std::int64_t>> parseIntList(std::string_view text);
std::optional<bool> parseBool(std::string_view text);
std::optional<std::int64_t> parseInt(std::string_view text);

}  // namespace chokepoint::analysis
