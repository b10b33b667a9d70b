#include "core/analysis/metrics/OpSchemas.h"

#include <charconv>

#include "core/base/Strings.h"

namespace chokepoint::analysis {

namespace {

std::string_view withoutAten(std::string_view opName) {
    return opName.starts_with("aten::") ? opName.substr(6) : opName;
}

// Forward convolutions (PyTorch 2.x schemas):
//   convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
//   _convolution(... the same ..., groups, benchmark, deterministic, cudnn_enabled[, allow_tf32])
//   conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups)
//   cudnn_convolution(self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)
//   miopen_convolution(self, weight, bias, padding, stride, dilation, groups, benchmark, deterministic)
//   mkldnn_convolution(self, weight, bias, padding, stride, dilation, groups)
struct ConvSchema {
    std::string_view op;
    std::size_t argumentCount;
    ConvForwardArguments arguments;
};
const ConvSchema kConvSchemas[] = {
    {"convolution", 9, {3, 4, 5, 6}},
    {"_convolution", 12, {3, 4, 5, 6}},
    {"_convolution", 13, {3, 4, 5, 6}},
    {"conv1d", 7, {3, 4, 5, {}}},
    {"conv2d", 7, {3, 4, 5, {}}},
    {"conv3d", 7, {3, 4, 5, {}}},
    {"cudnn_convolution", 9, {3, 2, 4, {}}},
    {"miopen_convolution", 9, {4, 3, 5, {}}},
    {"mkldnn_convolution", 7, {4, 3, 5, {}}},
};

// Attention ops (PyTorch 2.x schemas; positions of the mask argument):
//   scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, *, scale[, enable_gqa])
//   _scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal,
//       dropout_mask, *, scale[, enable_gqa])
//   _scaled_dot_product_flash_attention(query, key, value, dropout_p, is_causal, return_debug_mask, *, scale)
//   _scaled_dot_product_efficient_attention(query, key, value, attn_bias, compute_log_sumexp,
//       dropout_p, is_causal, *, scale)
//   _scaled_dot_product_cudnn_attention(query, key, value, attn_bias, compute_log_sumexp, dropout_p,
//       is_causal, return_debug_mask, *, scale)
//   _flash_attention_forward(query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
//       is_causal, return_debug_mask, *, scale[, window_size_left, window_size_right][, seqused_k,
//       alibi_slopes])                                                            [B, S, H, D]
//   _efficient_attention_forward(query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
//       max_seqlen_k, dropout_p, custom_mask_type, compute_log_sumexp, *, scale, seqlen_k,
//       window_size)                                                              [B, S, H, D]
//   _cudnn_attention_forward(query, key, value, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k,
//       compute_log_sumexp, dropout_p, is_causal, return_debug_mask, *, scale)
// and their backward ops, (grad_out, query, key, value, ...):
//   _scaled_dot_product_flash_attention_backward(grad_out, query, key, value, out, logsumexp,
//       cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, *, scale)
//   _flash_attention_backward(grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k,
//       max_q, max_k, dropout_p, is_causal, rng_state, unused, *, scale[, window_size_left,
//       window_size_right])                                                       [B, S, H, D]
//   _scaled_dot_product_efficient_attention_backward(grad_out_, query, key, value, attn_bias, out,
//       logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal, *, scale)
//   _efficient_attention_backward(grad_out_, query, key, value, bias, out, cu_seqlens_q,
//       cu_seqlens_k, max_seqlen_q, max_seqlen_k, logsumexp, dropout_p, philox_seed, philox_offset,
//       custom_mask_type, bias_requires_grad, *, scale, num_splits_key, window_size,
//       shared_storage_dqdkdv)                                                    [B, S, H, D]
//   _scaled_dot_product_cudnn_attention_backward / _cudnn_attention_backward(grad_out, query, key,
//       value, out, logsumexp, philox_seed, philox_offset, attn_bias, cum_seq_q, cum_seq_k, max_q,
//       max_k, dropout_p, is_causal, *, scale)
// PyTorch 2.0's memory-efficient ops had no attn_bias: _scaled_dot_product_efficient_attention(query,
// key, value, compute_log_sumexp, is_causal, *, scale) and its backward (grad_out_, query, key, value,
// out, logsumexp, is_causal, chunk_grad_outputs, *, scale).
// The counts of scaled_dot_product_attention (8), _scaled_dot_product_flash_attention (7),
// _flash_attention_forward (15), _scaled_dot_product_cudnn_attention (9), _cudnn_attention_forward
// (13) and both cuDNN backward ops (16) are the ones PyTorch 2.7-2.11 traces record.
struct AttentionSchema {
    std::string_view op;
    bool backward;
    bool sequenceBeforeHeads;
    std::size_t argumentCount;
    std::size_t mask;
    AttentionMaskArgument maskKind;
};
constexpr auto kCausal = AttentionMaskArgument::IsCausal;
constexpr auto kMaskType = AttentionMaskArgument::CustomMaskType;
const AttentionSchema kAttentionSchemas[] = {
    {"scaled_dot_product_attention", false, false, 7, 5, kCausal},
    {"scaled_dot_product_attention", false, false, 8, 5, kCausal},
    {"_scaled_dot_product_attention_math", false, false, 8, 5, kCausal},
    {"_scaled_dot_product_attention_math", false, false, 9, 5, kCausal},
    {"_scaled_dot_product_flash_attention", false, false, 7, 4, kCausal},
    {"_scaled_dot_product_efficient_attention", false, false, 6, 4, kCausal},
    {"_scaled_dot_product_efficient_attention", false, false, 8, 6, kCausal},
    {"_scaled_dot_product_cudnn_attention", false, false, 9, 6, kCausal},
    {"_flash_attention_forward", false, true, 11, 8, kCausal},
    {"_flash_attention_forward", false, true, 13, 8, kCausal},
    {"_flash_attention_forward", false, true, 15, 8, kCausal},
    {"_efficient_attention_forward", false, true, 14, 9, kMaskType},
    {"_cudnn_attention_forward", false, false, 13, 10, kCausal},
    {"_scaled_dot_product_flash_attention_backward", true, false, 15, 11, kCausal},
    {"_flash_attention_backward", true, true, 15, 11, kCausal},
    {"_flash_attention_backward", true, true, 17, 11, kCausal},
    {"_scaled_dot_product_efficient_attention_backward", true, false, 9, 6, kCausal},
    {"_scaled_dot_product_efficient_attention_backward", true, false, 13, 11, kCausal},
    {"_efficient_attention_backward", true, true, 20, 14, kMaskType},
    {"_scaled_dot_product_cudnn_attention_backward", true, false, 16, 14, kCausal},
    {"_cudnn_attention_backward", true, false, 16, 14, kCausal},
};

}  // namespace

std::optional<ConvBackwardInputs> convBackwardInputs(std::string_view opName) {
    const std::string_view op = withoutAten(opName);
    if (op == "convolution_backward") {
        return ConvBackwardInputs{0, 1, 2};
    }
    if (op == "cudnn_convolution_backward" || op == "miopen_convolution_backward") {
        return ConvBackwardInputs{1, 0, 2};
    }
    return std::nullopt;
}

std::optional<ConvForwardArguments> convForwardArguments(std::string_view opName, std::size_t argumentCount) {
    const std::string_view op = withoutAten(opName);
    for (const ConvSchema& schema : kConvSchemas) {
        if (schema.op == op && schema.argumentCount == argumentCount) {
            return schema.arguments;
        }
    }
    return std::nullopt;
}

std::optional<AttentionArguments> attentionArguments(std::string_view opName, std::size_t argumentCount) {
    const std::string_view op = withoutAten(opName);
    std::optional<AttentionArguments> found;
    for (const AttentionSchema& schema : kAttentionSchemas) {
        if (schema.op != op) {
            continue;
        }
        AttentionArguments arguments;
        arguments.backward = schema.backward;
        arguments.sequenceBeforeHeads = schema.sequenceBeforeHeads;
        if (schema.backward) {
            arguments.query = 1;
            arguments.key = 2;
            arguments.value = 3;
        }
        if (schema.argumentCount == argumentCount) {
            arguments.mask = schema.mask;
            arguments.maskKind = schema.maskKind;
            return arguments;
        }
        found = arguments;  // the op, without a mask position for this count
    }
    return found;
}

std::optional<std::int64_t> parseInt(std::string_view text) {
    text = core::trimSpaces(text);
    std::int64_t value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || ptr != end) {
        return std::nullopt;
    }
    return value;
}

std::optional<bool> parseBool(std::string_view text) {
    text = core::trimSpaces(text);
    if (text == "True" || text == "true") {
        return true;
    }
    if (text == "False" || text == "false") {
        return false;
    }
    return std::nullopt;
}

std::optional<std::vector<std::int64_t>> parseIntList(std::string_view text) {
    text = core::trimSpaces(text);
    if (text.empty()) {
        return std::nullopt;
    }
    if (text.front() != '[') {
        if (std::optional<std::int64_t> lone = parseInt(text)) {
            return std::vector<std::int64_t>{*lone};
        }
        return std::nullopt;
    }
    if (text.back() != ']') {
        return std::nullopt;
    }
    text = core::trimSpaces(text.substr(1, text.size() - 2));
    std::vector<std::int64_t> values;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        std::optional<std::int64_t> value = parseInt(text.substr(0, comma));
        if (!value) {
            return std::nullopt;
        }
        values.push_back(*value);
        if (comma == std::string_view::npos) {
            break;
        }
        text = text.substr(comma + 1);
        if (core::trimSpaces(text).empty()) {
            return std::nullopt;  // "[1, ]"
        }
    }
    return values;
}

}  // namespace chokepoint::analysis
