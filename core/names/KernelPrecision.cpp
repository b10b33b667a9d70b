// Precision of a kernel's math from its name (NameRules.h, "Precision of a kernel's math").

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Strings.h"
#include "core/names/NameRules.h"

namespace chokepoint::names {

namespace {

bool allAlpha(std::string_view t) {
    return !t.empty() && std::all_of(t.begin(), t.end(),
                                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

bool isArchToken(std::string_view t) {  // sm80, sm90, sm90a, sm100
    return t.size() >= 4 && t.starts_with("sm") && std::isdigit(static_cast<unsigned char>(t[2])) != 0;
}

// cuBLAS nvjet kernels: "nvjet_[smNN_]<code>_<tiles>...", the code's first letter is the input type
// (tst: BF16 in, FP32 compute, BF16 out; hsh / hss: FP16 in).
KernelPrecision nvjetPrecision(const std::vector<std::string>& w) {
    for (std::size_t i = 1; i < w.size(); ++i) {
        if (isArchToken(w[i])) {
            continue;
        }
        if (w[i].size() != 3 || !allAlpha(w[i])) {
            return KernelPrecision::Unknown;
        }
        switch (w[i][0]) {
            case 't':
                return KernelPrecision::BF16;
            case 'h':
                return KernelPrecision::FP16;
            default:
                return KernelPrecision::Unknown;
        }
    }
    return KernelPrecision::Unknown;
}

// The element type one token names explicitly (bf16bf16, bf16f32, bfloat16, e4m3, f16f16, tf32,
// sgemm, float ...), Unknown when it names none. `tensorCore`: the name shows an MMA
// implementation (FP32 inputs there are TF32 math).
KernelPrecision elementPrecision(std::string_view t, bool tensorCore) {
    if (t.starts_with("bf16") || t == "bfloat16" || t == "bfloat") {
        return KernelPrecision::BF16;
    }
    if (t.starts_with("e4m3") || t.starts_with("e5m2") || t == "fp8" || t == "f8" || t.starts_with("f8f8")) {
        return KernelPrecision::FP8;
    }
    if (t.starts_with("tf32")) {
        return KernelPrecision::TF32;
    }
    if (t.starts_with("f16") || t == "fp16" || t == "half" || t == "float16") {
        return KernelPrecision::FP16;
    }
    if (t == "int8" || t == "i8" || t == "s8" || t.starts_with("s8s8") || t.starts_with("imma")) {
        return KernelPrecision::INT8;
    }
    if (t == "f64" || t == "fp64" || t == "double" || t.starts_with("dgemm") || t.starts_with("f64f64")) {
        return KernelPrecision::FP64;
    }
    if (t.starts_with("f32f32") || t == "fp32" || t == "f32") {
        return tensorCore ? KernelPrecision::TF32 : KernelPrecision::FP32;
    }
    // cuBLAS CUDA-core families (ampere_sgemm_*, volta_sgemm_*, sgemv) and float templates.
    if (t.starts_with("sgemm") || t.starts_with("sgemv") || t == "float") {
        return tensorCore ? KernelPrecision::TF32 : KernelPrecision::FP32;
    }
    return KernelPrecision::Unknown;
}

// An MMA instruction-shape token without an element type: its letter is the accumulator, the
// shape implies the inputs (m16n8k16 takes 16-bit inputs, m16n8k8 with an FP32 accumulator TF32,
// m8n8k16 / m16n8k32 8-bit integers): h884 / h1688 / h16816 FP16, s16816 16-bit (read as FP16),
// s1688 TF32, i8816 / i16832 INT8.
KernelPrecision shapePrecision(std::string_view t) {
    for (std::string_view shape : {"h884", "h1688", "h16816", "s16816", "s161616"}) {
        if (t.starts_with(shape)) {
            return KernelPrecision::FP16;
        }
    }
    if (t.starts_with("s1688")) {
        return KernelPrecision::TF32;
    }
    if (t.starts_with("i8816") || t.starts_with("i16832")) {
        return KernelPrecision::INT8;
    }
    return KernelPrecision::Unknown;
}

}  // namespace

KernelPrecision kernelPrecisionFromName(std::string_view kernelName) {
    const std::vector<std::string> w = tokens(kernelName);
    if (w.empty()) {
        return KernelPrecision::Unknown;
    }
    if (w.front() == "nvjet") {
        return nvjetPrecision(w);
    }
    const bool tensorCore = classifyKernelName(kernelName).tensorCore;
    // The first token that names an element type names the inputs: xmma and CUTLASS names list A's
    // type first (gemm_bf16bf16_bf16f32_f32, s16816gemm_bf16), templates the element type before
    // the accumulator (cutlass::bfloat16_t, float). An instruction shape alone decides only when no
    // token names the type.
    for (const std::string& t : w) {
        if (const KernelPrecision p = elementPrecision(t, tensorCore); p != KernelPrecision::Unknown) {
            return p;
        }
    }
    for (const std::string& t : w) {
        if (const KernelPrecision p = shapePrecision(t); p != KernelPrecision::Unknown) {
            return p;
        }
    }
    return KernelPrecision::Unknown;
}

std::string_view toString(KernelPrecision precision) {
    switch (precision) {
        case KernelPrecision::Unknown:
            return "unknown";
        case KernelPrecision::FP64:
            return "fp64";
        case KernelPrecision::FP32:
            return "fp32";
        case KernelPrecision::TF32:
            return "tf32";
        case KernelPrecision::BF16:
            return "bf16";
        case KernelPrecision::FP16:
            return "fp16";
        case KernelPrecision::FP8:
            return "fp8";
        case KernelPrecision::INT8:
            return "int8";
    }
    return "unknown";
}

KernelPrecision precisionFromFact(std::string_view value) {
    std::string v = core::toLower(value);
    if (v.starts_with("torch.")) {
        v.erase(0, 6);  // torch.bfloat16
    }
    if (v == "bf16" || v == "bfloat16") {
        return KernelPrecision::BF16;
    }
    if (v == "fp16" || v == "float16" || v == "half") {
        return KernelPrecision::FP16;
    }
    if (v == "fp32" || v == "float32" || v == "float") {
        return KernelPrecision::FP32;
    }
    if (v == "tf32") {
        return KernelPrecision::TF32;
    }
    if (v == "fp8" || v.starts_with("float8")) {
        return KernelPrecision::FP8;
    }
    if (v == "fp64" || v == "float64" || v == "double") {
        return KernelPrecision::FP64;
    }
    return KernelPrecision::Unknown;
}

}  // namespace chokepoint::names
