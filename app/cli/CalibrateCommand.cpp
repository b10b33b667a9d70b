// chokepoint-cli calibrate: measure this machine's real ceilings (dense GEMM per precision through
// cuBLAS, device-to-device copy bandwidth) and write a device-database entry (schema in
// resources/devices/README.md) marked "measured", so rooflines can show measured roofs beside the
// datasheet ones.
//
// libcudart and libcublas are loaded at run time (dlopen by SONAME), so chokepoint-cli itself does
// not depend on CUDA; without a GPU the command fails with the CUDA error it got.

#include <dlfcn.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "core/base/JsonEscape.h"
#include "core/base/Strings.h"

#if CHOKEPOINT_CALIBRATE_WITH_CUDA
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#endif

namespace chokepoint::cli {

namespace {

void printCalibrateUsage(std::FILE* out) {
    std::fprintf(out,
                 "Usage: chokepoint-cli calibrate [--device N] [-o FILE] [--size N]\n\n"
                 "Measures dense GEMM throughput per precision (FP64, FP32, TF32, BF16, FP16) with cuBLAS\n"
                 "and device-to-device copy bandwidth on CUDA device N (default 0), and writes a device\n"
                 "entry (default chokepoint-calibration.json). Load it with CHOKEPOINT_DEVICES=FILE or copy\n"
                 "it to ~/.config/chokepoint/devices.json. Needs an NVIDIA GPU, libcudart.so.13 and\n"
                 "libcublas.so.13. --size sets the GEMM edge (default 8192).\n");
}

std::string slug(const std::string& name) {
    std::string out;
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            out.push_back(core::toLower(c));
        } else if (!out.empty() && out.back() != '-') {
            out.push_back('-');
        }
    }
    while (!out.empty() && out.back() == '-') {
        out.pop_back();
    }
    return out;
}

struct Measured {
    std::string deviceName;
    int smCount = 0;
    double memoryGiB = 0;
    double copyGBps = 0;
    std::vector<std::pair<std::string, double>> tflops;  // precision key -> TFLOP/s
};

#if CHOKEPOINT_CALIBRATE_WITH_CUDA

// The CUDA runtime and cuBLAS entry points we use, resolved with dlsym.
struct CudaApi {
    void* cudart = nullptr;
    void* cublas = nullptr;
    decltype(&cudaGetDeviceCount) getDeviceCount = nullptr;
    decltype(&cudaSetDevice) setDevice = nullptr;
    decltype(&cudaGetDeviceProperties) getDeviceProperties = nullptr;
    decltype(&cudaMalloc) malloc = nullptr;
    decltype(&cudaFree) free = nullptr;
    decltype(&cudaMemset) memset = nullptr;
    decltype(&cudaMemcpy) memcpy = nullptr;
    decltype(&cudaDeviceSynchronize) synchronize = nullptr;
    decltype(&cudaEventCreate) eventCreate = nullptr;
    decltype(&cudaEventRecord) eventRecord = nullptr;
    decltype(&cudaEventSynchronize) eventSynchronize = nullptr;
    decltype(&cudaEventElapsedTime) eventElapsed = nullptr;
    decltype(&cudaEventDestroy) eventDestroy = nullptr;
    decltype(&cudaGetErrorString) errorString = nullptr;
    decltype(&cublasCreate_v2) blasCreate = nullptr;
    decltype(&cublasDestroy_v2) blasDestroy = nullptr;
    // cublasGemmEx is overloaded in C++ (an int64 variant), so spell out the 32-bit one.
    using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                      const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                                      int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                                      cublasGemmAlgo_t);
    GemmEx gemmEx = nullptr;
};

template <class T>
bool resolve(void* lib, const char* name, T& out, std::string* missing) {
    out = reinterpret_cast<T>(::dlsym(lib, name));
    if (out == nullptr) {
        *missing = name;
        return false;
    }
    return true;
}

bool loadCuda(CudaApi& api, std::string* error) {
    api.cudart = ::dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (api.cudart == nullptr) {
        *error = std::string("cannot load the CUDA runtime: ") + ::dlerror();
        return false;
    }
    api.cublas = ::dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (api.cublas == nullptr) {
        *error = std::string("cannot load cuBLAS: ") + ::dlerror();
        return false;
    }
    std::string missing;
    bool ok = resolve(api.cudart, "cudaGetDeviceCount", api.getDeviceCount, &missing) &&
              resolve(api.cudart, "cudaSetDevice", api.setDevice, &missing) &&
              resolve(api.cudart, "cudaGetDeviceProperties", api.getDeviceProperties, &missing) &&
              resolve(api.cudart, "cudaMalloc", api.malloc, &missing) &&
              resolve(api.cudart, "cudaFree", api.free, &missing) &&
              resolve(api.cudart, "cudaMemset", api.memset, &missing) &&
              resolve(api.cudart, "cudaMemcpy", api.memcpy, &missing) &&
              resolve(api.cudart, "cudaDeviceSynchronize", api.synchronize, &missing) &&
              resolve(api.cudart, "cudaEventCreate", api.eventCreate, &missing) &&
              resolve(api.cudart, "cudaEventRecord", api.eventRecord, &missing) &&
              resolve(api.cudart, "cudaEventSynchronize", api.eventSynchronize, &missing) &&
              resolve(api.cudart, "cudaEventElapsedTime", api.eventElapsed, &missing) &&
              resolve(api.cudart, "cudaEventDestroy", api.eventDestroy, &missing) &&
              resolve(api.cudart, "cudaGetErrorString", api.errorString, &missing) &&
              resolve(api.cublas, "cublasCreate_v2", api.blasCreate, &missing) &&
              resolve(api.cublas, "cublasDestroy_v2", api.blasDestroy, &missing) &&
              resolve(api.cublas, "cublasGemmEx", api.gemmEx, &missing);
    if (!ok) {
        *error = "symbol " + missing + " not found in the CUDA libraries";
    }
    return ok;
}

// Times `iterations` runs of `work` with CUDA events after `warmup` runs; returns seconds per run.
template <class Work>
double timeIt(CudaApi& api, int warmup, int iterations, Work work, std::string* error) {
    for (int i = 0; i < warmup; ++i) {
        if (!work()) {
            *error = "warm-up run failed";
            return -1;
        }
    }
    cudaEvent_t start = nullptr, stop = nullptr;
    api.eventCreate(&start);
    api.eventCreate(&stop);
    api.eventRecord(start, nullptr);
    for (int i = 0; i < iterations; ++i) {
        if (!work()) {
            *error = "timed run failed";
            return -1;
        }
    }
    api.eventRecord(stop, nullptr);
    cudaError_t e = api.eventSynchronize(stop);
    float ms = 0;
    api.eventElapsed(&ms, start, stop);
    api.eventDestroy(start);
    api.eventDestroy(stop);
    if (e != cudaSuccess) {
        *error = api.errorString(e);
        return -1;
    }
    return static_cast<double>(ms) / 1000.0 / iterations;
}

bool measure(int device, long edge, Measured& out, std::string* error) {
    CudaApi api;
    if (!loadCuda(api, error)) {
        return false;
    }
    int count = 0;
    cudaError_t e = api.getDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        *error = e != cudaSuccess ? std::string("no usable CUDA device: ") + api.errorString(e)
                                  : std::string("no CUDA device found");
        return false;
    }
    if (device < 0 || device >= count) {
        *error = "device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " found)";
        return false;
    }
    api.setDevice(device);
    cudaDeviceProp prop{};
    if ((e = api.getDeviceProperties(&prop, device)) != cudaSuccess) {
        *error = std::string("cudaGetDeviceProperties: ") + api.errorString(e);
        return false;
    }
    out.deviceName = prop.name;
    out.smCount = prop.multiProcessorCount;
    out.memoryGiB = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);

    // Device-to-device copy: 1 GiB each way; bandwidth counts bytes read plus bytes written.
    const std::size_t copyBytes = std::size_t{1} << 30;
    void* a = nullptr;
    void* b = nullptr;
    if (api.malloc(&a, copyBytes) != cudaSuccess || api.malloc(&b, copyBytes) != cudaSuccess) {
        *error = "cannot allocate 2 GiB for the copy test";
        return false;
    }
    api.memset(a, 1, copyBytes);
    double copySeconds = timeIt(
        api, 2, 10, [&] { return api.memcpy(b, a, copyBytes, cudaMemcpyDeviceToDevice) == cudaSuccess; },
        error);
    api.free(a);
    api.free(b);
    if (copySeconds <= 0) {
        return false;
    }
    out.copyGBps = 2.0 * static_cast<double>(copyBytes) / copySeconds / 1e9;

    cublasHandle_t handle = nullptr;
    if (api.blasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        *error = "cublasCreate failed";
        return false;
    }
    struct Case {
        const char* key;
        cudaDataType_t type;
        cublasComputeType_t compute;
        std::size_t elementBytes;
        long edge;
    };
    const Case cases[] = {
        {"fp64", CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, edge / 2},
        {"fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, edge},
        {"tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, edge},
        {"bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, edge},
        {"fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, edge},
    };
    for (const Case& c : cases) {
        const long n = c.edge;
        const std::size_t bytes = static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * c.elementBytes;
        void *x = nullptr, *y = nullptr, *z = nullptr;
        if (api.malloc(&x, bytes) != cudaSuccess || api.malloc(&y, bytes) != cudaSuccess ||
            api.malloc(&z, bytes) != cudaSuccess) {
            *error = std::string("cannot allocate the ") + c.key + " GEMM operands";
            return false;
        }
        api.memset(x, 0, bytes);  // zeros are fine for throughput: no data-dependent fast paths in GEMM
        api.memset(y, 0, bytes);
        double alpha64 = 1, beta64 = 0;
        float alpha32 = 1, beta32 = 0;
        const void* alpha = c.compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha64) : &alpha32;
        const void* beta = c.compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta64) : &beta32;
        int ni = static_cast<int>(n);
        double seconds = timeIt(
            api, 3, 10,
            [&] {
                return api.gemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, alpha, x, c.type, ni, y,
                                  c.type, ni, beta, z, c.type, ni, c.compute,
                                  CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
            },
            error);
        api.free(x);
        api.free(y);
        api.free(z);
        if (seconds <= 0) {
            *error = std::string(c.key) + " GEMM: " + *error;
            return false;
        }
        double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
        out.tflops.emplace_back(c.key, flops / seconds / 1e12);
        std::fprintf(stderr, "  %-5s GEMM %ldx%ldx%ld: %.1f TFLOP/s\n", c.key, n, n, n,
                     flops / seconds / 1e12);
    }
    api.blasDestroy(handle);
    return true;
}

#endif  // CHOKEPOINT_CALIBRATE_WITH_CUDA

std::string entryJson(const Measured& m) {
    std::string peaks;
    for (const auto& [key, value] : m.tflops) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s\"%s\": %.1f", peaks.empty() ? "" : ", ", key.c_str(), value);
        peaks += buf;
    }
    char head[512];
    std::snprintf(head, sizeof head,
                  "{\n  \"schemaVersion\": 1,\n  \"devices\": [\n    {\n      \"id\": \"measured-%s\",\n"
                  "      \"name\": %s,\n      \"vendor\": \"NVIDIA\",\n      \"smCount\": %d,\n"
                  "      \"memoryGiB\": %.1f,\n      \"memoryBandwidthGBps\": %.0f,\n",
                  slug(m.deviceName).c_str(), core::jsonString(m.deviceName + " (measured)").c_str(),
                  m.smCount, m.memoryGiB, m.copyGBps);
    return std::string(head) + "      \"peakTflops\": { " + peaks +
           " },\n      \"tensorCore\": [\"tf32\", \"bf16\", \"fp16\"],\n      \"measured\": true,\n"
           "      \"source\": \"chokepoint-cli calibrate\",\n"
           "      \"notes\": \"Dense cuBLAS GEMM (GemmEx, square, zero operands, FP32 accumulate for "
           "TF32/BF16/FP16) "
           "and cudaMemcpy device-to-device of 1 GiB counting read plus write bytes.\"\n    }\n  ]\n}\n";
}

}  // namespace

int runCalibrate(const Args& args) {
    int device = 0;
    long edge = 8192;
    std::string output = "chokepoint-calibration.json";
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            printCalibrateUsage(stdout);
            return kExitOk;
        }
        if (a == "--device" && i + 1 < args.size()) {
            device = std::atoi(args[++i].c_str());
        } else if (a == "--size" && i + 1 < args.size()) {
            edge = std::atol(args[++i].c_str());
            if (edge < 256 || edge > 32768) {
                std::fprintf(stderr, "chokepoint-cli calibrate: --size must be between 256 and 32768\n");
                return kExitUsage;
            }
        } else if ((a == "-o" || a == "--output") && i + 1 < args.size()) {
            output = args[++i];
        } else {
            std::fprintf(stderr, "chokepoint-cli calibrate: unexpected argument '%s'\n\n", a.c_str());
            printCalibrateUsage(stderr);
            return kExitUsage;
        }
    }
#if CHOKEPOINT_CALIBRATE_WITH_CUDA
    Measured m;
    std::string error;
    std::fprintf(stderr, "calibrating CUDA device %d...\n", device);
    if (!measure(device, edge, m, &error)) {
        std::fprintf(stderr, "chokepoint-cli calibrate: %s\n", error.c_str());
        return kExitFailure;
    }
    std::ofstream out(output);
    out << entryJson(m);
    if (!out) {
        std::fprintf(stderr, "chokepoint-cli calibrate: cannot write %s\n", output.c_str());
        return kExitFailure;
    }
    std::fprintf(stderr, "%s: %s, copy %.0f GB/s; written to %s\n", m.deviceName.c_str(),
                 m.tflops.empty() ? "" : "GEMM measured", m.copyGBps, output.c_str());
    return kExitOk;
#else
    (void)device;
    (void)edge;
    (void)entryJson;
    std::fprintf(stderr,
                 "chokepoint-cli calibrate: this chokepoint-cli was built without the CUDA toolkit; rebuild "
                 "with CUDA (CHOKEPOINT_HAVE_CUPTI) on the GPU machine to measure its ceilings.\n");
    return kExitFailure;
#endif
}

}  // namespace chokepoint::cli
