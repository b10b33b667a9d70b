// Every GPU that the reference traces in ../shared/traces record is matched to the expected device
// database entry (each test skips when its trace is absent).

#include <gtest/gtest.h>

#include <string>

#include "core/analysis/devices/DeviceDatabase.h"
#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"

namespace chokepoint::analysis {
namespace {

struct Case {
    const char* file;
    const char* expectedId;
};

class SharedTraceDevices : public ::testing::TestWithParam<Case> {};

TEST_P(SharedTraceDevices, MatchExpectedEntry) {
    const Case& c = GetParam();
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, c.file);
    auto db = DeviceDatabase::loadBuiltin();
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto model = core::loadTrace(path);
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_FALSE(model->devices.empty()) << c.file;
    for (const core::DeviceInfo& device : model->devices) {
        DeviceMatch match = db->matchDevice(device);
        ASSERT_NE(match.spec, nullptr) << c.file << ": " << match.reason;
        EXPECT_EQ(match.spec->id, c.expectedId) << c.file << ": " << match.reason;
    }
}

INSTANTIATE_TEST_SUITE_P(
    ReferenceTraces, SharedTraceDevices,
    ::testing::Values(Case{"hta-trace-diff-control__control.json.gz", "a100-sxm4-40gb"},
                      Case{"hta-trace-diff-test__test.json.gz", "v100-sxm2-16gb"},
                      Case{"hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                           "v100-sxm2-32gb"},
                      Case{"hta-negative-queue__rank0.json.gz", "a100-sxm4-80gb"},
                      Case{"hta-amd-mi250__mi250_minitoy_train_ROCm6_2_kineto.json.gz", "mi250-gcd"},
                      Case{"param-linear__linear_kineto.json.gz", "rtx-2080-ti"},
                      Case{"tracelens-h100__gaunernst_bert-small-uncased__1016001.json.gz", "h100-sxm"},
                      Case{"kineto-tbplugin__gpu_metrics_input.json", "v100-sxm2-32gb"},
                      Case{"pipit-nsys__saxpy-mpi-cuda_nsys_perlmutter0.sqlite", "a100-sxm4-40gb"}),
    [](const ::testing::TestParamInfo<Case>& param) {
        std::string name;
        for (const char* p = param.param.file; *p && *p != '_'; ++p) {
            name += (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p : '_';
        }
        return name + "_" + std::to_string(param.index);
    });

}  // namespace
}  // namespace chokepoint::analysis
