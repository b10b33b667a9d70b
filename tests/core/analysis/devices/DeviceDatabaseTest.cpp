// Device database: built-in data, matching of every device name seen in the reference traces,
// user overrides and errors in user files.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "core/analysis/devices/DeviceDatabase.h"

namespace chokepoint::analysis {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const DeviceDatabase& builtin() {
    static DeviceDatabase db = [] {
        auto result = DeviceDatabase::loadBuiltin();
        if (!result.ok()) {
            ADD_FAILURE() << result.error().message;
            return DeviceDatabase{};
        }
        return std::move(result.value());
    }();
    return db;
}

core::DeviceInfo device(const std::string& name, int sms = 0, double memoryGiB = 0,
                        const std::string& vendor = {}) {
    core::DeviceInfo d;
    d.name = name;
    d.smCount = sms;
    d.totalMemoryBytes = static_cast<std::int64_t>(memoryGiB * kGiB);
    d.vendor = vendor;
    return d;
}

std::string matchedId(const core::DeviceInfo& d) {
    DeviceMatch m = builtin().matchDevice(d);
    EXPECT_FALSE(m.reason.empty());
    return m.spec ? m.spec->id : "<none: " + m.reason + ">";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::string tempFile(const std::string& content) {
    static int counter = 0;
    std::string path =
        (std::filesystem::temp_directory_path() /
         ("chokepoint-devices-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".json"))
            .string();
    std::ofstream(path) << content;
    return path;
}

TEST(DeviceDatabase, BuiltinIsCompleteAndSourced) {
    const DeviceDatabase& db = builtin();
    ASSERT_GE(db.size(), 20u);
    for (const char* id : {"v100-sxm2-16gb",
                           "v100-sxm2-32gb",
                           "a100-sxm4-40gb",
                           "a100-sxm4-80gb",
                           "h100-sxm",
                           "h100-pcie",
                           "h200-sxm",
                           "b200",
                           "l4",
                           "l40s",
                           "rtx-2080-ti",
                           "rtx-3090",
                           "rtx-4090",
                           "mi250",
                           "mi250x",
                           "mi250-gcd",
                           "mi250x-gcd",
                           "mi300x",
                           "h100-nvl",
                           "t4",
                           "a10"}) {
        const DeviceSpec* spec = db.find(id);
        ASSERT_NE(spec, nullptr) << id;
        EXPECT_FALSE(spec->name.empty()) << id;
        EXPECT_TRUE(spec->vendor == "NVIDIA" || spec->vendor == "AMD") << id;
        EXPECT_EQ(spec->source.rfind("https://", 0), 0u) << id;
        EXPECT_GT(spec->memoryBandwidthBytesPerSecond, 0) << id;
        EXPECT_GT(spec->memoryCapacityBytes, 0) << id;
        EXPECT_GT(spec->smCount, 0) << id;
        EXPECT_GT(spec->peakFlopsPerSecond(Precision::FP32), 0) << id;
        EXPECT_GT(spec->peakFlopsPerSecond(Precision::FP16), spec->peakFlopsPerSecond(Precision::FP32)) << id;
        EXPECT_GT(spec->tdpWatts, 0) << id;
        EXPECT_FALSE(spec->measured) << id;
    }
}

TEST(DeviceDatabase, EmbeddedCopyIsTheSourceFile) {
    std::ifstream in(std::string(CHOKEPOINT_SOURCE_DIR) + "/resources/devices/devices.json",
                     std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    EXPECT_EQ(DeviceDatabase::builtinJson(), content.str());
}

TEST(DeviceDatabase, FiguresAgreeWithSeedsAndDatasheets) {
    const DeviceDatabase& db = builtin();
    // Seed spec section 4.
    EXPECT_DOUBLE_EQ(db.find("v100-sxm2-32gb")->peakFlopsPerSecond(Precision::FP16), 125e12);
    EXPECT_DOUBLE_EQ(db.find("v100-sxm2-32gb")->peakFlopsPerSecond(Precision::FP32), 15.7e12);
    EXPECT_DOUBLE_EQ(db.find("v100-sxm2-32gb")->peakFlopsPerSecond(Precision::BF16), 0);  // no BF16 on Volta
    EXPECT_DOUBLE_EQ(db.find("a100-sxm4-80gb")->peakFlopsPerSecond(Precision::BF16), 312e12);
    EXPECT_DOUBLE_EQ(db.find("a100-sxm4-80gb")->peakFlopsPerSecond(Precision::FP32), 19.5e12);
    EXPECT_DOUBLE_EQ(db.find("a100-sxm4-80gb")->memoryBandwidthBytesPerSecond, 2039e9);
    EXPECT_DOUBLE_EQ(db.find("a100-sxm4-80gb")->tdpWatts, 400);
    EXPECT_DOUBLE_EQ(db.find("h100-sxm")->peakFlopsPerSecond(Precision::FP8), 1979e12);
    EXPECT_NEAR(db.find("h100-sxm")->peakFlopsPerSecond(Precision::BF16), 989e12, 1e12);
    EXPECT_EQ(db.find("h100-sxm")->smCount, 132);
    EXPECT_DOUBLE_EQ(db.find("h100-sxm")->interconnectBytesPerSecond, 900e9);
    EXPECT_DOUBLE_EQ(db.find("h200-sxm")->memoryCapacityBytes, 141 * kGiB);
    EXPECT_DOUBLE_EQ(db.find("rtx-4090")->memoryCapacityBytes, 24 * kGiB);
    // Datasheets (bandwidth for H100/H200 is not in the seeds).
    EXPECT_DOUBLE_EQ(db.find("h100-sxm")->memoryBandwidthBytesPerSecond, 3350e9);
    EXPECT_DOUBLE_EQ(db.find("h200-sxm")->memoryBandwidthBytesPerSecond, 4800e9);
    // Tensor-core flags.
    for (const PeakFlops& p : db.find("a100-sxm4-40gb")->peaks) {
        EXPECT_EQ(p.tensorCore, p.precision != Precision::FP32);
    }
    // An MI250 GCD is half the package.
    const DeviceSpec* gcd = db.find("mi250-gcd");
    const DeviceSpec* package = db.find("mi250");
    EXPECT_DOUBLE_EQ(2 * gcd->peakFlopsPerSecond(Precision::BF16),
                     package->peakFlopsPerSecond(Precision::BF16));
    EXPECT_DOUBLE_EQ(2 * gcd->memoryBandwidthBytesPerSecond, package->memoryBandwidthBytesPerSecond);
    EXPECT_EQ(2 * gcd->smCount, package->smCount);
}

TEST(DeviceDatabase, MatchesEveryTraceDeviceName) {
    // Names (and, where the trace records them, SMs and memory) from the reference traces.
    EXPECT_EQ(matchedId(device("NVIDIA A100-SXM4-80GB", 108, 79.15)), "a100-sxm4-80gb");
    EXPECT_EQ(matchedId(device("NVIDIA A100-SXM4-40GB", 108, 39.39)), "a100-sxm4-40gb");  // pipit nsys export
    EXPECT_EQ(matchedId(device("NVIDIA A100-PG509-200", 108, 39.59)), "a100-sxm4-40gb");
    EXPECT_EQ(matchedId(device("Tesla V100-SXM2-16GB", 80, 15.78)), "v100-sxm2-16gb");
    EXPECT_EQ(matchedId(device("Tesla V100-SXM2-32GB", 80, 31.75)), "v100-sxm2-32gb");
    EXPECT_EQ(matchedId(device("NVIDIA H100 80GB HBM3", 132, 79.1)), "h100-sxm");
    EXPECT_EQ(matchedId(device("NVIDIA GeForce RTX 2080 Ti", 68, 10.76)), "rtx-2080-ti");
    // HTA's MI250 trace: ROCm names the device "AMD Radeon Graphics"; 104 CUs is one GCD.
    EXPECT_EQ(matchedId(device("AMD Radeon Graphics", 104, 63.98)), "mi250-gcd");
    EXPECT_EQ(matchedId(device("AMD Radeon Graphics", 104)), "mi250-gcd");
    EXPECT_EQ(matchedId(device("AMD Radeon Graphics", 110, 63.98)), "mi250x-gcd");
    // Names without SM or memory information still match.
    EXPECT_EQ(matchedId(device("NVIDIA A100-SXM4-80GB")), "a100-sxm4-80gb");
    EXPECT_EQ(matchedId(device("NVIDIA H100 80GB HBM3")), "h100-sxm");
}

TEST(DeviceDatabase, MatchesOtherCommonNames) {
    EXPECT_EQ(matchedId(device("NVIDIA H100 PCIe", 114, 79.1)), "h100-pcie");
    EXPECT_EQ(matchedId(device("NVIDIA H200", 132, 140.4)), "h200-sxm");
    EXPECT_EQ(matchedId(device("NVIDIA B200", 148, 179.1)), "b200");
    EXPECT_EQ(matchedId(device("NVIDIA L4", 58, 22.5)), "l4");
    EXPECT_EQ(matchedId(device("NVIDIA L40S", 142, 45.0)), "l40s");
    EXPECT_EQ(matchedId(device("NVIDIA GeForce RTX 3090", 82, 23.7)), "rtx-3090");
    EXPECT_EQ(matchedId(device("NVIDIA GeForce RTX 4090", 128, 23.99)), "rtx-4090");
    EXPECT_EQ(matchedId(device("NVIDIA A100 80GB PCIe", 108, 79.2)), "a100-pcie-80gb");
    EXPECT_EQ(matchedId(device("NVIDIA A100-PCIE-40GB", 108, 39.4)), "a100-pcie-40gb");
    EXPECT_EQ(matchedId(device("Tesla V100-PCIE-32GB", 80, 31.7)), "v100-pcie-32gb");
    EXPECT_EQ(matchedId(device("AMD Instinct MI300X", 304, 191.98)), "mi300x");
    EXPECT_EQ(matchedId(device("NVIDIA H100 NVL", 132, 93.6)), "h100-nvl");
    EXPECT_EQ(matchedId(device("Tesla T4", 40, 14.75)), "t4");
    EXPECT_EQ(matchedId(device("NVIDIA A10", 72, 22.1)), "a10");
    // An A10G (AWS, 80 SMs) is neither an A10 nor an A100, and no 80-SM entry has 22 GiB.
    EXPECT_EQ(builtin().matchDevice(device("NVIDIA A10G", 80, 22.3)).spec, nullptr);
    // ROCm's combined marketing name: the CU count decides.
    EXPECT_EQ(matchedId(device("AMD Instinct MI250X / MI250", 110, 64)), "mi250x-gcd");
    EXPECT_EQ(matchedId(device("AMD Instinct MI250X / MI250", 104, 64)), "mi250-gcd");
    // Family name only: memory picks the variant; SXM is preferred over PCIe.
    EXPECT_EQ(matchedId(device("NVIDIA A100", 108, 79.2)), "a100-sxm4-80gb");
    EXPECT_EQ(matchedId(device("NVIDIA A100", 108, 39.4)), "a100-sxm4-40gb");
    // No name at all: the SM count and memory.
    EXPECT_EQ(matchedId(device("", 132, 79.1)), "h100-sxm");
    EXPECT_EQ(matchedId(device("", 132, 140.4)), "h200-sxm");
}

TEST(DeviceDatabase, RefusesContradictionsAndUnknowns) {
    DeviceMatch ti = builtin().matchDevice(device("NVIDIA GeForce RTX 3090 Ti", 84, 23.7));
    EXPECT_EQ(ti.spec, nullptr);
    EXPECT_TRUE(contains(ti.reason, "rtx-3090")) << ti.reason;
    EXPECT_TRUE(contains(ti.reason, "84 SMs")) << ti.reason;
    DeviceMatch unknown = builtin().matchDevice(device("Acme Matrix Engine", 7, 3));
    EXPECT_EQ(unknown.spec, nullptr);
    EXPECT_TRUE(contains(unknown.reason, "no entry")) << unknown.reason;
    // "L4" must not match an L40S and vice versa.
    EXPECT_EQ(matchedId(device("NVIDIA L40S")), "l40s");
    EXPECT_EQ(matchedId(device("NVIDIA L4")), "l4");
    std::string reason;
    EXPECT_EQ(builtin().match(device("AMD Radeon Graphics", 104), &reason), builtin().find("mi250-gcd"));
    EXPECT_TRUE(contains(reason, "104 CUs")) << reason;
}

TEST(DeviceDatabase, FindByIdNameOrPattern) {
    const DeviceDatabase& db = builtin();
    EXPECT_EQ(db.find("h100-sxm"), db.find("NVIDIA H100 SXM5 80GB"));
    EXPECT_EQ(db.find("h100-sxm"), db.find("nvidia h100 sxm5 80gb"));
    EXPECT_EQ(db.find("h100-sxm"), db.find("NVIDIA H100 80GB HBM3"));
    EXPECT_EQ(db.find("no-such-device"), nullptr);
}

TEST(DeviceDatabase, UserFileOverridesAndAdds) {
    auto result = DeviceDatabase::loadBuiltin();
    ASSERT_TRUE(result.ok());
    DeviceDatabase db = std::move(result.value());
    const DeviceSpec* h100 = db.find("h100-sxm");
    const std::size_t before = db.size();
    std::string path = tempFile(R"({
  "devices": [
    {"id": "h100-sxm", "memoryBandwidthGBps": 3000, "peakTflops": {"bf16": 800}, "measured": true},
    {"id": "acme-x1", "name": "Acme X1", "vendor": "NVIDIA", "smCount": 10, "memoryGiB": 8,
     "memoryBandwidthGBps": 100, "peakTflops": {"fp32": 5, "fp16": 20}, "tensorCore": ["fp16"],
     "match": {"names": ["acme x1"]}, "source": "measured by chokepoint-cli calibrate"}
  ]
})");
    ASSERT_TRUE(db.loadFile(path).ok());
    std::filesystem::remove(path);
    EXPECT_EQ(db.size(), before + 1);
    EXPECT_EQ(db.find("h100-sxm"), h100);  // overridden in place: pointers stay valid
    EXPECT_DOUBLE_EQ(h100->memoryBandwidthBytesPerSecond, 3000e9);
    EXPECT_DOUBLE_EQ(h100->peakFlopsPerSecond(Precision::BF16), 800e12);
    EXPECT_DOUBLE_EQ(h100->peakFlopsPerSecond(Precision::FP8), 1979e12);  // untouched
    EXPECT_TRUE(h100->measured);
    std::string reason;
    const DeviceSpec* acme = db.match(device("Acme X1 Pro"), &reason);
    ASSERT_NE(acme, nullptr) << reason;
    EXPECT_EQ(acme->id, "acme-x1");
    EXPECT_DOUBLE_EQ(acme->memoryCapacityBytes, 8 * kGiB);
    ASSERT_EQ(acme->peaks.size(), 2u);
    EXPECT_FALSE(acme->peaks[0].tensorCore);  // FP32
    EXPECT_TRUE(acme->peaks[1].tensorCore);   // FP16
}

// What `chokepoint-cli calibrate` writes on an H100 (same fields; figures of a plausible run).
const char* const kCalibrationJson = R"json({
  "schemaVersion": 1,
  "devices": [
    {
      "id": "measured-nvidia-h100-80gb-hbm3",
      "name": "NVIDIA H100 80GB HBM3 (measured)",
      "vendor": "NVIDIA",
      "smCount": 132,
      "memoryGiB": 79.1,
      "memoryBandwidthGBps": 2890,
      "peakTflops": { "fp64": 51.0, "fp32": 49.8, "tf32": 371.2, "bf16": 701.5, "fp16": 711.9 },
      "tensorCore": ["tf32", "bf16", "fp16"],
      "measured": true,
      "source": "chokepoint-cli calibrate",
      "notes": "Dense cuBLAS GEMM and cudaMemcpy device-to-device."
    }
  ]
})json";

TEST(DeviceDatabase, FindsTheCalibrationOfATraceDevice) {
    auto result = DeviceDatabase::loadBuiltin();
    ASSERT_TRUE(result.ok());
    DeviceDatabase db = std::move(result.value());
    EXPECT_EQ(db.findMeasured(device("NVIDIA H100 80GB HBM3", 132)), nullptr);  // none loaded yet
    ASSERT_TRUE(db.loadJson(kCalibrationJson, "calibration.json").ok());
    const DeviceSpec* measured = db.findMeasured(device("NVIDIA H100 80GB HBM3", 132));
    ASSERT_NE(measured, nullptr);
    EXPECT_EQ(measured->id, "measured-nvidia-h100-80gb-hbm3");
    EXPECT_TRUE(measured->measured);
    EXPECT_DOUBLE_EQ(measured->peakFlopsPerSecond(Precision::BF16), 701.5e12);
    EXPECT_NE(db.findMeasured(device("nvidia h100 80gb hbm3")), nullptr);  // no SM count: name decides
    // Matching for MFU still takes the datasheet.
    ASSERT_NE(db.match(device("NVIDIA H100 80GB HBM3", 132)), nullptr);
    EXPECT_EQ(db.match(device("NVIDIA H100 80GB HBM3", 132))->id, "h100-sxm");
    // Another device, or the same name with another SM count, has no calibration.
    EXPECT_EQ(db.findMeasured(device("NVIDIA A100-SXM4-80GB", 108)), nullptr);
    EXPECT_EQ(db.findMeasured(device("NVIDIA H100 80GB HBM3", 114)), nullptr);
    EXPECT_EQ(db.findMeasured(device("")), nullptr);
}

TEST(DeviceDatabase, BadUserFilesNameFileAndPlace) {
    auto result = DeviceDatabase::loadBuiltin();
    ASSERT_TRUE(result.ok());
    DeviceDatabase db = std::move(result.value());
    const std::size_t before = db.size();
    const double bandwidth = db.find("l4")->memoryBandwidthBytesPerSecond;

    auto expectError = [&](const std::string& json, const std::string& part) {
        core::Status s = db.loadJson(json, "user.json");
        ASSERT_FALSE(s.ok()) << json;
        EXPECT_TRUE(contains(s.error().message, "user.json: ")) << s.error().message;
        EXPECT_TRUE(contains(s.error().message, part)) << s.error().message;
    };
    expectError("{\n  \"devices\": [\n    {\"id\": \"x\",, \"name\": \"X\"}\n  ]\n}", "line 3");
    expectError("{\"devices\": [{\"id\": \"x\", \"name\": \"X\"}", "invalid JSON");
    expectError("[]", "must be a JSON object");
    expectError(R"({"devices": {}})", "\"devices\" must be an array");
    expectError(R"({"devices": [{"id": "l4", "memoryBandwidthGBps": 1}, {"name": "no id"}]})",
                "devices[1]: field \"id\"");
    expectError(R"({"devices": [{"id": "x", "name": "X", "smCount": "many"}]})",
                "devices[0] (id \"x\"): field \"smCount\"");
    expectError(R"({"devices": [{"id": "x", "name": "X", "peakTflop": {}}]})", "unknown field \"peakTflop\"");
    expectError(R"({"devices": [{"id": "x", "name": "X", "peakTflops": {"fp4": 1}}]})",
                "unknown precision \"fp4\"");
    expectError(R"({"devices": [{"id": "x", "name": "X", "peakTflops": {"fp16": -1}}]})", "peakTflops.fp16");
    expectError(R"({"devices": [{"id": "x", "memoryGiB": 1}]})", "a new device needs a \"name\"");
    expectError(R"({"devices": [{"id": "x", "name": "X"}, {"id": "x", "name": "Y"}]})", "duplicate id");
    expectError(R"({"devices": [{"id": "Bad Id", "name": "X"}]})", "may use only");
    expectError(R"({"schemaVersion": 2, "devices": []})", "schemaVersion");
    // Nothing was changed by the failed loads (the first one named l4 before failing).
    EXPECT_EQ(db.size(), before);
    EXPECT_DOUBLE_EQ(db.find("l4")->memoryBandwidthBytesPerSecond, bandwidth);

    core::Status missing = db.loadFile("/nonexistent/devices.json");
    ASSERT_FALSE(missing.ok());
    EXPECT_TRUE(contains(missing.error().message, "/nonexistent/devices.json"));
    core::Status directory = db.loadFile(std::filesystem::temp_directory_path().string());
    ASSERT_FALSE(directory.ok());
    EXPECT_TRUE(contains(directory.error().message, "directory"));
}

TEST(DeviceDatabase, LoadDefaultReadsConfigAndEnvironment) {
    std::filesystem::path config =
        std::filesystem::temp_directory_path() / ("chokepoint-config-" + std::to_string(::getpid()));
    std::filesystem::create_directories(config / "chokepoint");
    std::ofstream(config / "chokepoint" / "devices.json") << R"({"devices": [{"id": "l4", "tdpWatts": 70}]})";
    std::string envFile = tempFile(R"({"devices": [{"id": "l4", "memoryBandwidthGBps": 299}]})");
    ::setenv("XDG_CONFIG_HOME", config.c_str(), 1);
    ::setenv("CHOKEPOINT_DEVICES", envFile.c_str(), 1);
    auto db = DeviceDatabase::loadDefault();
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_DOUBLE_EQ(db->find("l4")->tdpWatts, 70);
    EXPECT_DOUBLE_EQ(db->find("l4")->memoryBandwidthBytesPerSecond, 299e9);

    ::setenv("CHOKEPOINT_DEVICES", "/nonexistent/chokepoint.json", 1);
    auto broken = DeviceDatabase::loadDefault();
    ASSERT_FALSE(broken.ok());
    EXPECT_TRUE(contains(broken.error().message, "$CHOKEPOINT_DEVICES")) << broken.error().message;
    ::unsetenv("CHOKEPOINT_DEVICES");
    ::unsetenv("XDG_CONFIG_HOME");
    std::filesystem::remove_all(config);
    std::filesystem::remove(envFile);
}

}  // namespace
}  // namespace chokepoint::analysis
