// Every row of the name corpus (tests/core/names/data/name_corpus.tsv: real names from public traces
// and published name formats, each with its expected class) against core/names/NameRules.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/names/NameRules.h"

namespace chokepoint::names {
namespace {

struct Row {
    int line = 0;
    std::string what, expected, tensorCore, family, name;
};

std::vector<Row> readCorpus() {
    const std::string path = std::string(CHOKEPOINT_SOURCE_DIR) + "/tests/core/names/data/name_corpus.tsv";
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "cannot open " << path;
    std::vector<Row> rows;
    std::string text;
    int lineNumber = 0;
    while (std::getline(in, text)) {
        ++lineNumber;
        if (text.empty() || text[0] == '#') {
            continue;
        }
        Row row;
        row.line = lineNumber;
        std::istringstream fields(text);
        std::getline(fields, row.what, '\t');
        std::getline(fields, row.expected, '\t');
        std::getline(fields, row.tensorCore, '\t');
        std::getline(fields, row.family, '\t');
        std::getline(fields, row.name);
        EXPECT_FALSE(row.name.empty())
            << path << ":" << lineNumber << ": a row needs five tab-separated fields";
        rows.push_back(row);
    }
    return rows;
}

std::string className(KernelClass c) {
    static const std::map<KernelClass, std::string> kNames = {
        {KernelClass::Gemm, "gemm"},
        {KernelClass::Convolution, "convolution"},
        {KernelClass::Attention, "attention"},
        {KernelClass::Elementwise, "elementwise"},
        {KernelClass::Normalization, "normalization"},
        {KernelClass::Reduction, "reduction"},
        {KernelClass::Communication, "communication"},
        {KernelClass::Copy, "copy"},
        {KernelClass::Memset, "memset"},
        {KernelClass::Other, "other"},
    };
    return kNames.at(c);
}

std::string apiName(ApiRole r) {
    switch (r) {
        case ApiRole::KernelLaunch:
            return "launch";
        case ApiRole::GraphLaunch:
            return "graph-launch";
        case ApiRole::CopyAsync:
            return "copy-async";
        case ApiRole::CopyBlocking:
            return "copy-blocking";
        case ApiRole::Memset:
            return "memset";
        case ApiRole::Synchronize:
            return "sync";
        case ApiRole::Other:
            break;
    }
    return "other";
}

TEST(NameRulesCorpusTest, EveryRowHasItsExpectedClass) {
    const std::vector<Row> rows = readCorpus();
    ASSERT_GT(rows.size(), 250u);
    std::map<std::string, int> perKind;
    for (const Row& row : rows) {
        ++perKind[row.what];
        const std::string where = "corpus line " + std::to_string(row.line) + ": " + row.name;
        if (row.what == "kernel") {
            const KernelNameInfo info = classifyKernelName(row.name);
            EXPECT_EQ(className(info.kernelClass), row.expected) << where;
            EXPECT_EQ(info.tensorCore ? "tc" : "-", row.tensorCore) << where;
            EXPECT_EQ(std::string(toString(info.family)), row.family) << where;
            EXPECT_EQ(isCommunicationKernelName(row.name), row.expected == "communication") << where;
        } else if (row.what == "op") {
            EXPECT_EQ(className(kernelClassFromOpName(row.name)), row.expected) << where;
        } else if (row.what == "host") {
            EXPECT_EQ(std::string(toString(hostRoleOf(row.name))), row.expected) << where;
        } else if (row.what == "stack") {
            std::vector<std::string> leafFirst;
            if (row.name != "-") {
                std::istringstream frames(row.name);
                for (std::string frame; std::getline(frames, frame, '\t');) {
                    leafFirst.insert(leafFirst.begin(), frame);
                }
            }
            const StackRole role = stackRoleOf(leafFirst);
            EXPECT_EQ(std::string(toString(role.role)), row.expected) << where;
            EXPECT_LE(role.frame, leafFirst.empty() ? 0 : leafFirst.size() - 1) << where;
        } else if (row.what == "api") {
            EXPECT_EQ(apiName(apiRoleOf(row.name)), row.expected) << where;
        } else if (row.what == "thread") {
            EXPECT_EQ(std::string(toString(threadRoleOf(row.name))), row.expected) << where;
        } else if (row.what == "marker") {
            EXPECT_EQ(std::string(toString(markerRoleOf(row.name))), row.expected) << where;
        } else if (row.what == "precision") {
            EXPECT_EQ(std::string(toString(kernelPrecisionFromName(row.name))), row.expected) << where;
        } else if (row.what == "hta") {
            const HtaKernelType t = htaKernelType(row.name);
            EXPECT_EQ(t == HtaKernelType::Communication ? "communication"
                      : t == HtaKernelType::Memory      ? "memory"
                                                        : "computation",
                      row.expected)
                << where;
        } else if (row.what == "device") {
            const std::string arch = architectureFromDeviceName(row.name);
            EXPECT_EQ(arch.empty() ? "-" : arch, row.expected) << where;
        } else if (row.what == "framework") {
            EXPECT_EQ(isFrameworkOpName(row.name) ? "yes" : "no", row.expected) << where;
        } else if (row.what == "collective") {
            const std::string kind = collectiveKindFromName(row.name);
            EXPECT_EQ(kind.empty() ? "-" : kind, row.expected) << where;
        } else {
            ADD_FAILURE() << where << ": unknown row kind '" << row.what << "'";
        }
    }
    // Every part of the table is covered.
    for (const char* kind : {"kernel", "op", "host", "stack", "framework", "api", "thread", "device", "hta",
                             "collective", "marker", "precision"}) {
        EXPECT_GT(perKind[kind], 0) << kind;
    }
}

// The classic substring traps, spelled out (they are corpus rows too).
TEST(NameRulesCorpusTest, TokensNotSubstrings) {
    EXPECT_EQ(classifyKernelName("triton_poi_fused__to_copy_convert_element_type_0").kernelClass,
              KernelClass::Elementwise);
    EXPECT_NE(kernelClassFromOpName("aten::_convert_indices_from_coo_to_csr"), KernelClass::Convolution);
    EXPECT_EQ(hostRoleOf("aten::broadcast_tensors"), HostRole::None);
    EXPECT_FALSE(isCommunicationOpName("aten::broadcast_tensors"));
    EXPECT_EQ(classifyKernelName(
                  "void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)")
                  .kernelClass,
              KernelClass::Other);
    EXPECT_EQ(hostRoleOf("torch/compiler/__init__.py(367): is_compiling"), HostRole::None);
    EXPECT_EQ(hostRoleOf("torch/utils/checkpoint.py(451): checkpoint"), HostRole::None);
}

TEST(NameRulesCorpusTest, TokenizerSplitsCaseChangesAndSeparators) {
    EXPECT_EQ(tokens("ncclDevKernel_AllReduce_Sum"),
              (std::vector<std::string>{"nccl", "dev", "kernel", "all", "reduce", "sum"}));
    EXPECT_EQ(tokens("torch/_dynamo/convert_frame.py(1045): _compile"),
              (std::vector<std::string>{"torch", "dynamo", "convert", "frame", "py", "1045", "compile"}));
    EXPECT_TRUE(tokens("").empty());
}

// A sampled frame is read in Kineto's python_function form.
TEST(NameRulesCorpusTest, FrameNamesInKinetoForm) {
    EXPECT_EQ(frameName("torch/utils/data/dataloader.py", "_BaseDataLoaderIter.__next__", 701),
              "torch/utils/data/dataloader.py(701): _BaseDataLoaderIter.__next__");
    EXPECT_EQ(frameName("train.py", "main", 0), "train.py: main");
    EXPECT_EQ(frameName("", "at::native::mm", 0), "at::native::mm");
    // The deciding frame: the outermost input-preparation frame of a single-process loader's stack.
    const std::vector<std::string> stack = {
        "transforms.py(980): RandomResizedCrop.forward",
        "torch/utils/data/_utils/fetch.py(52): _MapDatasetFetcher.fetch",
        "torch/utils/data/dataloader.py(701): _BaseDataLoaderIter.__next__", "train.py(9): main"};
    const StackRole role = stackRoleOf(stack);
    EXPECT_EQ(role.role, HostRole::DataPreparation);
    EXPECT_EQ(role.frame, 1u);
}

// The step markers a capture records (capture.step_markers) and the defaults without one.
TEST(NameRulesCorpusTest, StepMarkersFromTheCaptureNote) {
    EXPECT_EQ(parseStepMarkers("ProfilerStep#|chokepoint:step|step"), defaultStepMarkerPrefixes());
    EXPECT_EQ(parseStepMarkers(""), defaultStepMarkerPrefixes());
    EXPECT_EQ(parseStepMarkers("train_iter"), (std::vector<std::string>{"train_iter"}));
    EXPECT_EQ(parseStepMarkers(" a | |b "), (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(matchesStepMarker("chokepoint:step#4", "chokepoint:step"));
    EXPECT_FALSE(matchesStepMarker("Chokepoint:step#4", "chokepoint:step"));  // case-sensitive, as the agent
    EXPECT_FALSE(matchesStepMarker("anything", ""));
    EXPECT_TRUE(isProfilerStepName("ProfilerStep#12"));
    EXPECT_FALSE(isProfilerStepName("ProfilerStep"));
}

// Helper facts name the autocast dtype in a few spellings.
TEST(NameRulesCorpusTest, PrecisionFacts) {
    EXPECT_EQ(precisionFromFact("bf16"), KernelPrecision::BF16);
    EXPECT_EQ(precisionFromFact("torch.bfloat16"), KernelPrecision::BF16);
    EXPECT_EQ(precisionFromFact("FP16"), KernelPrecision::FP16);
    EXPECT_EQ(precisionFromFact("tf32"), KernelPrecision::TF32);
    EXPECT_EQ(precisionFromFact("fp32"), KernelPrecision::FP32);
    EXPECT_EQ(precisionFromFact("fp8"), KernelPrecision::FP8);
    EXPECT_EQ(precisionFromFact("int4"), KernelPrecision::Unknown);
}

}  // namespace
}  // namespace chokepoint::names
