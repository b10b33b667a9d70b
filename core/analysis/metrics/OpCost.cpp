#include "core/analysis/metrics/OpCost.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/metrics/KernelClassifier.h"
#include "core/base/Strings.h"
#include "core/model/NameMemo.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

namespace {

class ListParser {
public:
    explicit ListParser(std::string_view text) : m_text(text) {}

    std::optional<std::vector<Shape>> shapes() {
        std::vector<Shape> out;
        skipSpace();
        if (!eat('[')) {
            return std::nullopt;
        }
        skipSpace();
        if (eat(']')) {
            return finish(out);
        }
        while (true) {
            skipSpace();
            Shape shape;
            if (peek() == '[') {
                if (!parseShape(shape)) {
                    return std::nullopt;
                }
            } else if (!skipScalar()) {  // a bare value where a shape was expected: no tensor
                return std::nullopt;
            }
            out.push_back(std::move(shape));
            skipSpace();
            if (eat(']')) {
                return finish(out);
            }
            if (!eat(',')) {
                return std::nullopt;
            }
        }
    }

    std::optional<std::vector<std::string>> strings() {
        std::vector<std::string> out;
        skipSpace();
        if (!eat('[')) {
            return std::nullopt;
        }
        skipSpace();
        if (eat(']')) {
            return finishStrings(out);
        }
        while (true) {
            skipSpace();
            if (!eat('"')) {
                return std::nullopt;
            }
            std::string value;
            while (m_pos < m_text.size() && m_text[m_pos] != '"') {
                if (m_text[m_pos] == '\\' && m_pos + 1 < m_text.size()) {
                    ++m_pos;
                }
                value.push_back(m_text[m_pos++]);
            }
            if (!eat('"')) {
                return std::nullopt;
            }
            out.push_back(std::move(value));
            skipSpace();
            if (eat(']')) {
                return finishStrings(out);
            }
            if (!eat(',')) {
                return std::nullopt;
            }
        }
    }

private:
    // One shape: [d0, d1, ...]. A nested list (a tensor list) yields an empty shape.
    bool parseShape(Shape& shape) {
        eat('[');
        skipSpace();
        if (eat(']')) {
            return true;
        }
        bool nested = false;
        while (true) {
            skipSpace();
            if (peek() == '[') {
                Shape inner;
                if (!parseShape(inner)) {
                    return false;
                }
                nested = true;
            } else {
                std::int64_t value = 0;
                if (!parseInt(value)) {
                    return false;
                }
                shape.push_back(value);
            }
            skipSpace();
            if (eat(']')) {
                if (nested) {
                    shape.clear();
                }
                return true;
            }
            if (!eat(',')) {
                return false;
            }
        }
    }
    bool parseInt(std::int64_t& value) {
        bool negative = eat('-');
        std::size_t start = m_pos;
        value = 0;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
            if (value > (std::int64_t{1} << 55)) {
                return false;  // absurd dimension: treat as malformed instead of overflowing
            }
            value = value * 10 + (m_text[m_pos++] - '0');
        }
        if (negative) {
            value = -value;
        }
        return m_pos > start;
    }
    bool skipScalar() {
        std::size_t start = m_pos;
        while (m_pos < m_text.size() && m_text[m_pos] != ',' && m_text[m_pos] != ']') {
            ++m_pos;
        }
        return m_pos > start;
    }
    template <class T>
    std::optional<T> finish(T& value) {
        skipSpace();
        return m_pos == m_text.size() ? std::optional<T>(std::move(value)) : std::nullopt;
    }
    std::optional<std::vector<std::string>> finishStrings(std::vector<std::string>& value) {
        return finish(value);
    }
    void skipSpace() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) {
            ++m_pos;
        }
    }
    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    bool eat(char c) {
        if (peek() == c) {
            ++m_pos;
            return true;
        }
        return false;
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
};

double numel(const Shape& s) {
    double n = 1;
    for (std::int64_t d : s) {
        n *= static_cast<double>(std::max<std::int64_t>(d, 0));
    }
    return n;
}

// Element size for input i: its recorded dtype, else the first known one, else 4 (float).
double elemSize(const std::vector<std::string>& types, std::size_t i) {
    if (i < types.size()) {
        if (int size = dtypeSizeBytes(types[i]); size > 0) {
            return size;
        }
    }
    for (const std::string& t : types) {
        if (int size = dtypeSizeBytes(t); size > 0) {
            return size;
        }
    }
    return 4;
}

double tensorBytes(const std::vector<Shape>& shapes, const std::vector<std::string>& types, std::size_t i) {
    return i < shapes.size() && !shapes[i].empty() ? numel(shapes[i]) * elemSize(types, i) : 0.0;
}

int precisionBytes(Precision p) {
    switch (p) {
        case Precision::FP64:
            return 8;
        case Precision::FP32:
        case Precision::TF32:
            return 4;
        case Precision::BF16:
        case Precision::FP16:
            return 2;
        case Precision::FP8:
        case Precision::INT8:
            return 1;
    }
    return 4;
}

bool oneOf(std::string_view name, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// FLOPs per output element of elementwise ops (transcendentals counted as a few FLOPs).
double elementwiseFlopsPerElement(std::string_view op) {
    if (oneOf(op, {"gelu", "gelu_", "silu", "silu_", "sigmoid", "sigmoid_", "tanh", "tanh_", "exp", "exp_",
                   "log", "pow", "sqrt", "rsqrt", "erf", "gelu_backward", "silu_backward", "sigmoid_backward",
                   "tanh_backward"})) {
        return 4;
    }
    if (oneOf(op, {"add",      "add_",     "sub",           "sub_",         "mul",     "mul_",
                   "div",      "div_",     "relu",          "relu_",        "neg",     "abs",
                   "clamp",    "clamp_",   "where",         "maximum",      "minimum", "threshold_backward",
                   "addcmul_", "addcdiv_", "lerp_",         "masked_fill_", "fill_",   "zero_",
                   "copy_",    "dropout",  "native_dropout"})) {
        return 1;
    }
    return -1;
}

}  // namespace

std::optional<std::vector<Shape>> parseShapes(std::string_view text) {
    return ListParser(text).shapes();
}

std::optional<std::vector<std::string>> parseTypes(std::string_view text) {
    return ListParser(text).strings();
}

int dtypeSizeBytes(std::string_view type) {
    if (type == "double" || type == "long int" || type == "long" || type == "int64_t" ||
        type == "c10::complex<float>") {
        return 8;
    }
    if (type == "float" || type == "int" || type == "unsigned int" || type == "int32_t") {
        return 4;
    }
    if (type == "c10::Half" || type == "c10::BFloat16" || type == "short" || type == "half") {
        return 2;
    }
    if (type.starts_with("c10::Float8") || type == "bool" || type == "signed char" ||
        type == "unsigned char" || type == "c10::qint8" || type == "c10::quint8") {
        return 1;
    }
    if (type == "c10::complex<double>") {
        return 16;
    }
    return 0;
}

std::optional<Precision> precisionOfType(std::string_view type) {
    if (type == "double") {
        return Precision::FP64;
    }
    if (type == "float") {
        return Precision::FP32;
    }
    if (type == "c10::BFloat16") {
        return Precision::BF16;
    }
    if (type == "c10::Half" || type == "half") {
        return Precision::FP16;
    }
    if (type.starts_with("c10::Float8")) {
        return Precision::FP8;
    }
    return std::nullopt;
}

std::string_view toString(Precision precision) {
    switch (precision) {
        case Precision::FP64:
            return "FP64";
        case Precision::FP32:
            return "FP32";
        case Precision::TF32:
            return "TF32";
        case Precision::BF16:
            return "BF16";
        case Precision::FP16:
            return "FP16";
        case Precision::FP8:
            return "FP8";
        case Precision::INT8:
            return "INT8";
    }
    return "FP32";
}

void ConvOutputShapes::add(const Shape& input, const Shape& weight, const Shape& output) {
    auto key = std::make_pair(input, weight);
    auto it = std::lower_bound(m_outputs.begin(), m_outputs.end(), key,
                               [](const auto& entry, const auto& k) { return entry.first < k; });
    if (it != m_outputs.end() && it->first == key) {
        if (it->second && *it->second != output) {
            it->second.reset();  // two outputs for one key (different strides): use neither
        }
        return;
    }
    m_outputs.insert(it, {std::move(key), output});
}

const Shape* ConvOutputShapes::find(const Shape& input, const Shape& weight) const {
    const auto key = std::make_pair(input, weight);
    auto it = std::lower_bound(m_outputs.begin(), m_outputs.end(), key,
                               [](const auto& entry, const auto& k) { return entry.first < k; });
    return it != m_outputs.end() && it->first == key && it->second ? &*it->second : nullptr;
}

namespace {

// A convolution's input, weight and output shapes agree: same rank (at least 3), same batch, the
// output's channels are the weight's output channels, and no output dimension is larger than the
// input's (a transposed convolution, whose weight is [in, out/g, kernel] and whose output grows,
// would otherwise be costed at its output's size).
bool convShapesAgree(const Shape& input, const Shape& weight, const Shape& output) {
    if (input.size() < 3 || weight.size() != input.size() || output.size() != input.size() ||
        output[0] != input[0] || output[1] != weight[0]) {
        return false;
    }
    for (std::size_t d = 2; d < input.size(); ++d) {
        if (output[d] > input[d]) {
            return false;
        }
    }
    return true;
}

bool isConvBackward(std::string_view opName) {
    return convBackwardInputs(opName).has_value();
}

// A forward convolution's output as its recorded scalar arguments give it: per spatial dimension,
// out = floor((in + 2·padding - dilation·(kernel - 1) - 1) / stride) + 1 (PyTorch's Conv1d/2d/3d
// docs). nullopt when the op's schema is not known or the arguments were not recorded as integer
// lists; `transposed` is set when the op says it is a transposed convolution (no output then).
struct RecordedConvOutput {
    std::optional<Shape> output;
    bool transposed = false;
};
RecordedConvOutput convOutputFromArguments(std::string_view opName, const Shape& input, const Shape& weight,
                                           const std::vector<std::string>& concrete) {
    RecordedConvOutput result;
    const std::optional<ConvForwardArguments> at = convForwardArguments(opName, concrete.size());
    if (!at || at->stride >= concrete.size() || at->padding >= concrete.size() ||
        at->dilation >= concrete.size()) {
        return result;
    }
    if (at->transposed && *at->transposed < concrete.size()) {
        const std::optional<bool> transposed = parseBool(concrete[*at->transposed]);
        if (!transposed) {
            return result;
        }
        if (*transposed) {
            result.transposed = true;
            return result;
        }
    }
    const std::optional<std::vector<std::int64_t>> stride = parseIntList(concrete[at->stride]);
    const std::optional<std::vector<std::int64_t>> padding = parseIntList(concrete[at->padding]);
    const std::optional<std::vector<std::int64_t>> dilation = parseIntList(concrete[at->dilation]);
    const std::size_t spatial = input.size() - 2;
    auto fits = [spatial](const std::optional<std::vector<std::int64_t>>& list) {
        return list && (list->size() == spatial || list->size() == 1);
    };
    if (!fits(stride) || !fits(padding) || !fits(dilation)) {
        return result;
    }
    auto value = [](const std::vector<std::int64_t>& list, std::size_t d) {
        return list.size() == 1 ? list[0] : list[d];
    };
    Shape output{input[0], weight[0]};
    for (std::size_t d = 0; d < spatial; ++d) {
        const std::int64_t s = value(*stride, d);
        const std::int64_t p = value(*padding, d);
        const std::int64_t dil = value(*dilation, d);
        const std::int64_t span = input[d + 2] + 2 * p - dil * (weight[d + 2] - 1) - 1;
        if (s <= 0 || p < 0 || dil <= 0 || span < 0) {
            return result;
        }
        output.push_back(span / s + 1);
    }
    result.output = std::move(output);
    return result;
}

// Query-key pairs an attention computes: all Sq·Sk without a mask; with the causal mask aligned to
// the top left (PyTorch's is_causal) query i sees keys 0..i, aligned to the bottom right keys
// 0..i+Sk-Sq. A causal kernel skips the masked blocks, so they are not counted.
double attendedPairs(double sq, double sk, std::int64_t causalAlignment) {
    if (causalAlignment == 1) {
        return sq <= sk ? sq * (sq + 1) / 2 : sk * (sk + 1) / 2 + (sq - sk) * sk;
    }
    if (causalAlignment == 2) {
        return sk >= sq ? sq * (sq + 1) / 2 + sq * (sk - sq) : sk * (sk + 1) / 2;
    }
    return sq * sk;
}

}  // namespace

ConvOutputShapes convOutputShapesFromBackward(const core::TraceModel& model) {
    ConvOutputShapes out;
    const core::CpuOpTable& ops = model.cpuOps;
    core::NameMemo backwardName(model, isConvBackward);
    std::unordered_set<std::uint32_t> seenShapes;  // each recorded shape list once
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!ops.inputShapes[i].valid() || !backwardName(ops.name[i]) ||
            !seenShapes.insert(ops.inputShapes[i].index).second) {
            continue;
        }
        const std::optional<ConvBackwardInputs> at = convBackwardInputs(model.text(ops.name[i]));
        const std::optional<std::vector<Shape>> shapes = parseShapes(model.text(ops.inputShapes[i]));
        if (!shapes || shapes->size() <= std::max({at->gradOutput, at->input, at->weight})) {
            continue;
        }
        const Shape& gradOutput = (*shapes)[at->gradOutput];
        const Shape& input = (*shapes)[at->input];
        const Shape& weight = (*shapes)[at->weight];
        if (convShapesAgree(input, weight, gradOutput)) {
            out.add(input, weight, gradOutput);
        }
    }
    return out;
}

OpCostEstimate estimateOpCost(std::string_view opName, std::string_view inputShapes,
                              std::string_view inputTypes, const ConvOutputShapes* convOutputs,
                              std::string_view concreteInputs) {
    OpCostEstimate est;
    if (opName.empty() || inputShapes.empty()) {
        return est;
    }
    std::optional<std::vector<Shape>> parsed = parseShapes(inputShapes);
    if (!parsed) {
        return est;
    }
    const std::vector<Shape>& s = *parsed;
    std::vector<std::string> types = parseTypes(inputTypes).value_or(std::vector<std::string>{});
    // Scalar arguments, one entry per recorded input ("" for a tensor); empty when not recorded.
    std::vector<std::string> concrete = parseTypes(concreteInputs).value_or(std::vector<std::string>{});
    if (concrete.size() != s.size()) {
        concrete.clear();
    }
    std::string_view op = opName.starts_with("aten::") ? opName.substr(6) : opName;
    auto rank = [&](std::size_t i) { return i < s.size() ? s[i].size() : 0; };
    auto dim = [&](std::size_t i, std::size_t d) { return static_cast<double>(s[i][d]); };
    // Precision: the widest floating input dtype.
    for (std::size_t i = 0; i < types.size() && i < s.size(); ++i) {
        if (s[i].empty()) {
            continue;
        }
        std::optional<Precision> p = precisionOfType(types[i]);
        if (p && (!est.precision || precisionBytes(*p) > precisionBytes(*est.precision))) {
            est.precision = p;
        }
    }
    // A matrix op runs in its operands' dtype: an fp32 side input (attention backward's logsumexp,
    // an fp32 bias) does not make bf16 tensor-core math FP32.
    auto operandPrecision = [&](std::size_t operand) {
        if (operand < types.size()) {
            if (std::optional<Precision> p = precisionOfType(types[operand])) {
                est.precision = p;
            }
        }
    };
    auto done = [&](double flops, double bytes, std::string formula) {
        est.known = flops > 0;
        est.flops = flops;
        est.bytes = bytes;
        est.formula = std::move(formula);
        return est;
    };

    if (op == "mm" && rank(0) == 2 && rank(1) == 2) {
        double m = dim(0, 0), k = dim(0, 1), n = dim(1, 1);
        return done(2 * m * n * k,
                    tensorBytes(s, types, 0) + tensorBytes(s, types, 1) + m * n * elemSize(types, 0),
                    "mm 2·M·N·K");
    }
    if (op == "addmm" && rank(1) == 2 && rank(2) == 2) {
        operandPrecision(1);  // mat1; the bias may be kept in fp32
        double m = dim(1, 0), k = dim(1, 1), n = dim(2, 1);
        return done(2 * m * n * k + m * n,
                    tensorBytes(s, types, 0) + tensorBytes(s, types, 1) + tensorBytes(s, types, 2) +
                        m * n * elemSize(types, 1),
                    "addmm 2·M·N·K + M·N");
    }
    if ((op == "bmm" && rank(0) == 3 && rank(1) == 3) || (op == "baddbmm" && rank(1) == 3 && rank(2) == 3)) {
        std::size_t a = op == "bmm" ? 0 : 1;
        double b = dim(a, 0), m = dim(a, 1), k = dim(a, 2), n = dim(a + 1, 2);
        double flops = 2 * b * m * n * k + (op == "baddbmm" ? b * m * n : 0);
        double bytes = tensorBytes(s, types, 0) + tensorBytes(s, types, 1) +
                       (op == "baddbmm" ? tensorBytes(s, types, 2) : 0) + b * m * n * elemSize(types, a);
        return done(flops, bytes, op == "bmm" ? "bmm 2·B·M·N·K" : "baddbmm 2·B·M·N·K + B·M·N");
    }
    if (op == "matmul" && rank(0) >= 1 && rank(1) >= 1) {
        const Shape& a = s[0];
        const Shape& b = s[1];
        double m = a.size() >= 2 ? static_cast<double>(a[a.size() - 2]) : 1;
        double k = static_cast<double>(a.back());
        double n = b.size() >= 2 ? static_cast<double>(b.back()) : 1;
        double batchA = 1, batchB = 1;
        for (std::size_t i = 0; i + 2 < a.size(); ++i) {
            batchA *= static_cast<double>(a[i]);
        }
        for (std::size_t i = 0; i + 2 < b.size(); ++i) {
            batchB *= static_cast<double>(b[i]);
        }
        double batch = std::max(batchA, batchB);
        return done(2 * batch * m * n * k,
                    tensorBytes(s, types, 0) + tensorBytes(s, types, 1) + batch * m * n * elemSize(types, 0),
                    "matmul 2·batch·M·N·K");
    }
    if (op == "linear" && rank(0) >= 1 && rank(1) == 2) {
        double k = static_cast<double>(s[0].back());
        double rows = numel(s[0]) / std::max(1.0, k);
        double n = dim(1, 0);
        bool bias = rank(2) >= 1;
        return done(2 * rows * n * k + (bias ? rows * n : 0),
                    tensorBytes(s, types, 0) + tensorBytes(s, types, 1) + tensorBytes(s, types, 2) +
                        rows * n * elemSize(types, 0),
                    bias ? "linear 2·rows·N·K + rows·N" : "linear 2·rows·N·K");
    }
    if ((oneOf(op, {"convolution", "_convolution", "conv1d", "conv2d", "conv3d", "cudnn_convolution",
                    "miopen_convolution", "mkldnn_convolution", "_convolution_mode"})) &&
        rank(0) >= 3 && rank(1) == rank(0)) {
        const Shape& x = s[0];
        const Shape& w = s[1];
        const RecordedConvOutput recorded = convOutputFromArguments(opName, x, w, concrete);
        const Shape* output = recorded.output                                  ? &*recorded.output
                              : convOutputs != nullptr && !recorded.transposed ? convOutputs->find(x, w)
                                                                               : nullptr;
        double batch = static_cast<double>(x[0]);
        double outChannels = static_cast<double>(w[0]);
        double inPerGroup = static_cast<double>(w[1]);
        double outSpatial = 1, kernel = 1;
        for (std::size_t d = 2; d < x.size(); ++d) {
            // Without recorded arguments or the backward op's gradient, "same" size. A transposed
            // convolution's weight is [C, O/g, kernel]: at the input's size the product below is
            // its exact count, 2·N·C·in·(O/g)·kernel.
            outSpatial *= static_cast<double>(output != nullptr ? (*output)[d] : x[d]);
            kernel *= static_cast<double>(w[d]);
        }
        double out = batch * outChannels * outSpatial;
        const char* formula = recorded.output ? "conv 2·N·O·out·(C/g)·kernel (out from the recorded stride)"
                              : recorded.transposed ? "transposed conv 2·N·C·in·(O/g)·kernel"
                              : output != nullptr
                                  ? "conv 2·N·O·out·(C/g)·kernel (out from the backward op)"
                                  : "conv 2·N·O·out·(C/g)·kernel (out = input size: estimate)";
        return done(2 * out * inPerGroup * kernel,
                    tensorBytes(s, types, 0) + tensorBytes(s, types, 1) + tensorBytes(s, types, 2) +
                        out * elemSize(types, 0),
                    formula);
    }
    if (const std::optional<ConvBackwardInputs> at = convBackwardInputs(opName);
        at && convShapesAgree(s.size() > at->input ? s[at->input] : Shape{},
                              s.size() > at->weight ? s[at->weight] : Shape{},
                              s.size() > at->gradOutput ? s[at->gradOutput] : Shape{})) {
        const Shape& w = s[at->weight];
        double kernel = 1;
        for (std::size_t d = 2; d < w.size(); ++d) {
            kernel *= static_cast<double>(w[d]);
        }
        const double forwardFlops = 2 * numel(s[at->gradOutput]) * static_cast<double>(w[1]) * kernel;
        // Reads the gradient, the input and the weight; writes the input's and the weight's gradients.
        const double bytes = tensorBytes(s, types, at->gradOutput) + 2 * tensorBytes(s, types, at->input) +
                             2 * tensorBytes(s, types, at->weight);
        return done(2 * forwardFlops, bytes,
                    "conv backward 2 × 2·N·O·out·(C/g)·kernel (grad input, grad weight)");
    }
    if (names::kernelClassFromOpName(op) == names::KernelClass::Attention) {
        // PyTorch's attention ops by schema (OpSchemas.h); another attention op is read as
        // (query, key, value, ...) in [B, H, S, D], without a mask.
        const AttentionArguments at = attentionArguments(opName, s.size()).value_or(AttentionArguments{});
        if (rank(at.query) == 4 && rank(at.key) == 4) {
            const Shape& q = s[at.query];
            const Shape& k = s[at.key];
            const bool bshd = at.sequenceBeforeHeads;
            const double b = static_cast<double>(q[0]);
            const double h = static_cast<double>(bshd ? q[2] : q[1]);
            const double sq = static_cast<double>(bshd ? q[1] : q[2]);
            const double sk = static_cast<double>(bshd ? k[1] : k[2]);
            const double d = static_cast<double>(q[3]);
            const double dv = rank(at.value) == 4 ? static_cast<double>(s[at.value][3]) : d;
            // 0 no mask, 1 causal from the top left, 2 from the bottom right; nullopt not recorded.
            std::optional<std::int64_t> causalAlignment;
            if (at.mask && *at.mask < concrete.size()) {
                if (at.maskKind == AttentionMaskArgument::IsCausal) {
                    if (const std::optional<bool> isCausal = parseBool(concrete[*at.mask])) {
                        causalAlignment = *isCausal ? 1 : 0;
                    }
                } else if (const std::optional<std::int64_t> type = parseInt(concrete[*at.mask]);
                           type && *type >= 0 && *type <= 2) {
                    causalAlignment = *type;
                }
            }
            operandPrecision(at.query);
            const double pairs = attendedPairs(sq, sk, causalAlignment.value_or(0));
            const double forwardFlops = 2 * b * h * pairs * d + 2 * b * h * pairs * dv;
            const double outputBytes = b * h * sq * dv * elemSize(types, at.query);
            const double qkvBytes = tensorBytes(s, types, at.query) + tensorBytes(s, types, at.key) +
                                    tensorBytes(s, types, at.value);
            std::string formula =
                at.backward ? "attention backward 2 × 4·B·H·S·Sk·D" : "attention 4·B·H·S·Sk·D";
            formula += !causalAlignment       ? " (mask not recorded: every query-key pair)"
                       : *causalAlignment > 0 ? " over the causal pairs"
                                              : "";
            // Backward: dV, dP, dQ and dK, four matmuls to the forward's two (model FLOPs; a
            // FlashAttention kernel also recomputes Q·K^T, which is not counted). It reads dO, Q,
            // K, V and O, and writes dQ, dK and dV.
            return at.backward ? done(2 * forwardFlops, 2 * outputBytes + 2 * qkvBytes, std::move(formula))
                               : done(forwardFlops, qkvBytes + outputBytes, std::move(formula));
        }
    }
    if (oneOf(op, {"layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm", "batch_norm",
                   "native_batch_norm", "_batch_norm_impl_index", "cudnn_batch_norm", "group_norm",
                   "native_group_norm", "instance_norm"}) &&
        rank(0) >= 1) {
        double elems = numel(s[0]);
        double params = 0;
        for (std::size_t i = 1; i < s.size(); ++i) {
            params += tensorBytes(s, types, i);
        }
        return done(5 * elems, 2 * tensorBytes(s, types, 0) + params, "norm 5·elements");
    }
    if (oneOf(op, {"softmax", "_softmax", "log_softmax", "_log_softmax", "_safe_softmax"}) && rank(0) >= 1) {
        return done(5 * numel(s[0]), 2 * tensorBytes(s, types, 0), "softmax 5·elements");
    }
    if (double perElement = elementwiseFlopsPerElement(op); perElement > 0) {
        double outElems = 0;
        double inBytes = 0;
        std::size_t widest = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (numel(s[i]) > outElems && !s[i].empty()) {
                outElems = numel(s[i]);
                widest = i;
            }
            inBytes += tensorBytes(s, types, i);
        }
        if (outElems > 0) {
            bool inPlace = op.back() == '_';
            return done(perElement * outElems, inBytes + (inPlace ? 0 : outElems * elemSize(types, widest)),
                        "elementwise " + std::to_string(static_cast<int>(perElement)) + "·elements");
        }
    }
    return est;
}

bool kernelNameSaysTf32(std::string_view kernelName) {
    for (std::size_t i = 0; i + 4 <= kernelName.size(); ++i) {
        if (core::toLower(kernelName[i]) == 't' && core::toLower(kernelName[i + 1]) == 'f' &&
            kernelName[i + 2] == '3' && kernelName[i + 3] == '2') {
            return true;
        }
    }
    return false;
}

double embeddingTableParameters(const core::TraceModel& model) {
    const core::CpuOpTable& ops = model.cpuOps;
    std::vector<std::pair<std::int64_t, std::int64_t>> tables;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const std::string_view name = model.text(ops.name[i]);
        if ((name != "aten::embedding" && name != "embedding") || !ops.inputShapes[i].valid()) {
            continue;
        }
        const std::optional<std::vector<Shape>> shapes = parseShapes(model.text(ops.inputShapes[i]));
        if (shapes && !shapes->empty() && (*shapes)[0].size() == 2 && (*shapes)[0][0] > 0 &&
            (*shapes)[0][1] > 0) {
            tables.emplace_back((*shapes)[0][0], (*shapes)[0][1]);
        }
    }
    std::sort(tables.begin(), tables.end());
    tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
    double parameters = 0;
    for (const auto& [rows, width] : tables) {
        parameters += static_cast<double>(rows) * static_cast<double>(width);
    }
    return parameters;
}

OpCostResult attributeOpCosts(const core::TraceModel& model, const std::vector<KernelClass>* kernelClass) {
    OpCostResult result;
    const std::size_t kernelCount = model.kernels.size();
    result.kernelFlops.assign(kernelCount, 0.0);
    result.kernelBytes.assign(kernelCount, 0.0);
    result.kernelPrecision.assign(kernelCount, -1);
    result.kernelSharers.assign(kernelCount, 0);
    const core::CpuOpTable& ops = model.cpuOps;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (ops.inputShapes[i].valid() && !model.text(ops.inputShapes[i]).empty()) {
            ++result.opsWithShapes;
        }
    }
    if (result.opsWithShapes == 0 || kernelCount == 0) {
        return result;
    }
    // Costed op for each op: itself when a formula applies, else its nearest costed ancestor.
    constexpr std::int64_t kUnresolved = -2;
    std::vector<std::int64_t> costedOf(ops.size(), kUnresolved);
    std::vector<const OpCostEstimate*> estimates(ops.size(), nullptr);  // set for costed ops
    // Many calls share (name, shapes, types, scalar arguments): estimate each combination once.
    using Key = std::array<std::uint32_t, 4>;  // name, shapes, types, scalar arguments
    struct KeyHash {
        std::size_t operator()(const Key& k) const {
            return (std::size_t{k[0]} * 0x9E3779B1u) ^ (std::size_t{k[1]} << 21) ^
                   (std::size_t{k[2]} * 0x85EBCA77u) ^ (std::size_t{k[3]} * 0xC2B2AE3Du);
        }
    };
    std::unordered_map<Key, OpCostEstimate, KeyHash> byKey;
    const ConvOutputShapes convOutputs = convOutputShapesFromBackward(model);
    auto estimateFor = [&](std::uint32_t op) -> const OpCostEstimate& {
        const Key key{ops.name[op].index, ops.inputShapes[op].index, ops.inputTypes[op].index,
                      ops.concreteInputs[op].index};
        auto it = byKey.find(key);
        if (it == byKey.end()) {
            OpCostEstimate e =
                ops.inputShapes[op].valid()
                    ? estimateOpCost(
                          model.text(ops.name[op]), model.text(ops.inputShapes[op]),
                          ops.inputTypes[op].valid() ? model.text(ops.inputTypes[op]) : std::string_view{},
                          &convOutputs,
                          ops.concreteInputs[op].valid() ? model.text(ops.concreteInputs[op])
                                                         : std::string_view{})
                    : OpCostEstimate{};
            it = byKey.emplace(key, std::move(e)).first;
        }
        return it->second;
    };
    auto resolve = [&](std::uint32_t start) {
        std::vector<std::uint32_t> chain;
        std::int64_t found = -1;
        std::uint32_t cur = start;
        for (int depth = 0; depth < 64; ++depth) {
            if (costedOf[cur] != kUnresolved) {
                found = costedOf[cur];
                break;
            }
            chain.push_back(cur);
            const OpCostEstimate& e = estimateFor(cur);
            if (e.known) {
                estimates[cur] = &e;
                found = cur;
                chain.pop_back();
                costedOf[cur] = cur;
                break;
            }
            core::CpuOpId parent = ops.parent[cur];
            if (!parent.valid() || parent.index >= ops.size()) {
                break;
            }
            cur = parent.index;
        }
        for (std::uint32_t c : chain) {
            costedOf[c] = found;
        }
        return found;
    };
    // Costed op of every kernel, then each op's total kernel time, then each kernel's share. An op
    // that launched matmul-class kernels (GEMM, convolution, attention) gives its FLOPs to those
    // alone: the layout transforms, copies and split-K reductions beside them do not multiply.
    std::vector<std::int64_t> kernelOp(kernelCount, -1);
    std::vector<double> opKernelNs(ops.size(), 0.0);
    std::vector<std::int32_t> opKernels(ops.size(), 0);
    std::vector<double> opMatmulNs(ops.size(), 0.0);
    std::vector<std::int32_t> opMatmulKernels(ops.size(), 0);
    auto durationOf = [&](std::uint32_t k) {
        return static_cast<double>(std::max<core::DurationNs>(0, model.kernels.durationNs(k)));
    };
    auto isMatmul = [&](std::uint32_t k) {
        if (kernelClass == nullptr || k >= kernelClass->size()) {
            return false;
        }
        const KernelClass c = (*kernelClass)[k];
        return c == KernelClass::Gemm || c == KernelClass::Convolution || c == KernelClass::Attention;
    };
    for (std::uint32_t k = 0; k < kernelCount; ++k) {
        core::CpuOpId op = launchingOp(model, core::KernelId{k});
        if (!op.valid()) {
            continue;
        }
        std::int64_t costed = resolve(op.index);
        if (costed >= 0) {
            kernelOp[k] = costed;
            opKernelNs[static_cast<std::size_t>(costed)] += durationOf(k);
            ++opKernels[static_cast<std::size_t>(costed)];
            if (isMatmul(k)) {
                opMatmulNs[static_cast<std::size_t>(costed)] += durationOf(k);
                ++opMatmulKernels[static_cast<std::size_t>(costed)];
            }
        }
    }
    core::NameMemo tf32Name(model, kernelNameSaysTf32);  // once per kernel name, not per kernel
    for (std::uint32_t k = 0; k < kernelCount; ++k) {
        if (kernelOp[k] < 0) {
            continue;
        }
        const auto opIndex = static_cast<std::uint32_t>(kernelOp[k]);
        const OpCostEstimate& e = *estimates[opIndex];
        auto shareOf = [&](double ns, double totalNs, std::int32_t count) {
            return totalNs > 0 ? ns / totalNs : 1.0 / static_cast<double>(count);
        };
        const double share = shareOf(durationOf(k), opKernelNs[opIndex], opKernels[opIndex]);
        result.kernelBytes[k] = e.bytes * share;
        if (opMatmulKernels[opIndex] == 0) {
            result.kernelFlops[k] = e.flops * share;
            result.kernelSharers[k] = opKernels[opIndex];
        } else if (isMatmul(k)) {
            result.kernelFlops[k] =
                e.flops * shareOf(durationOf(k), opMatmulNs[opIndex], opMatmulKernels[opIndex]);
            result.kernelSharers[k] = opMatmulKernels[opIndex];
        } else {
            result.kernelSharers[k] = opMatmulKernels[opIndex];  // no FLOPs of its own
        }
        std::optional<Precision> precision = e.precision;
        // PyTorch records fp32 dtypes for matmuls that cuBLAS runs as TF32 on tensor cores
        // (torch.backends.cuda.matmul.allow_tf32); only the kernel name tells.
        if (precision == Precision::FP32 && tf32Name(model.kernels.name[k])) {
            precision = Precision::TF32;
        }
        result.kernelPrecision[k] = precision ? static_cast<std::int8_t>(*precision) : std::int8_t{-1};
        ++result.kernelsCosted;
    }
    for (std::size_t opIndex = 0; opIndex < ops.size(); ++opIndex) {
        if (opKernels[opIndex] == 0) {
            continue;
        }
        const OpCostEstimate& e = *estimates[opIndex];
        result.totalFlops += e.flops;
        result.totalBytes += e.bytes;
        ++result.opsCosted;
    }
    return result;
}

}  // namespace chokepoint::analysis
