#pragma once
// Writes small but complete Kineto JSON traces of the ranks of a data-parallel job: ProfilerStep#N
// ranges, aten ops launching compute kernels with cudaLaunchKernel (correlated), a DataLoader range
// at the start of each step, and one NCCL all-reduce per step with PyTorch 2.x collective args.
// Every rank's all-reduce ends at the same instant (last arrival + transfer); `lateRank` waits
// `lateDataNs` longer for its batch. Each rank's clock is shifted by `clockOffsetNs(rank)`.

#include <cstdint>
#include <fstream>
#include <string>

namespace chokepoint::testjob {

struct KinetoJobOptions {
    int ranks = 4;
    int steps = 4;
    int lateRank = -1;
    std::int64_t lateDataUs = 0;
    std::int64_t skewUsPerRank = 0;  // rank r's clock runs r x skew ahead
};

inline std::string kinetoRankTrace(const KinetoJobOptions& o, int rank) {
    const std::int64_t offset = o.skewUsPerRank * rank;
    std::string events;
    auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
    auto us = [&](std::int64_t t) { return std::to_string(t + offset + 1'700'000'000'000'000LL); };
    add(R"({"ph":"M","name":"process_name","pid":100,"tid":0,"args":{"name":"python"}})");
    std::int64_t t = 1000;
    std::int64_t correlation = 1;
    for (int step = 0; step < o.steps; ++step) {
        const std::int64_t stepStart = t;
        const std::int64_t data = 2000 + (rank == o.lateRank ? o.lateDataUs : 0);
        add(R"({"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":100,"tid":100,"ts":)" +
            us(t) + R"(,"dur":)" + std::to_string(data) + "}");
        std::int64_t host = t + data;
        std::int64_t gpu = host;
        for (int k = 0; k < 5; ++k) {
            add(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":)" + us(host) +
                R"(,"dur":20,"args":{"External id":)" + std::to_string(correlation) + "}}");
            add(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":)" +
                us(host + 5) + R"(,"dur":8,"args":{"correlation":)" + std::to_string(correlation) +
                R"(,"External id":)" + std::to_string(correlation) + "}}");
            gpu = std::max(gpu, host + 15);
            add(R"({"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16bf16_bf16f32","pid":0,"tid":7,"ts":)" +
                us(gpu) + R"(,"dur":3000,"args":{"device":0,"stream":7,"correlation":)" +
                std::to_string(correlation) + R"(,"grid":[132,1,1],"block":[128,1,1]}})");
            gpu += 3000;
            host += 30;
            ++correlation;
        }
        // The all-reduce: starts when this rank's compute is done; ends when the last rank's is
        // done plus the transfer. Every rank's compute ends at the same offset in the step except
        // the late rank's; arrivals therefore differ by the late rank's extra data time.
        const std::int64_t arrival = gpu;
        const std::int64_t lastArrival = arrival + (rank == o.lateRank ? 0 : o.lateDataUs);
        const std::int64_t end = lastArrival + 1500;
        add(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":)" +
            us(host) + R"(,"dur":8,"args":{"correlation":)" + std::to_string(correlation) + "}}");
        add(R"J({"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":20,"ts":)J" +
            us(arrival) + R"(,"dur":)" + std::to_string(end - arrival) +
            R"(,"args":{"device":0,"stream":20,"correlation":)" + std::to_string(correlation) +
            R"(,"Collective name":"allreduce","In msg nelems":67108864,"Out msg nelems":67108864,"Group size":)" +
            std::to_string(o.ranks) +
            R"(,"dtype":"BFloat16","Process Group Name":"0","Process Group Description":"default_pg","Process Group Ranks":"[0, 1, 2, 3]"}})");
        ++correlation;
        t = end + 100;
        add(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(10 + step) +
            R"(","pid":100,"tid":100,"ts":)" + us(stepStart) + R"(,"dur":)" + std::to_string(t - stepStart) +
            "}");
    }
    return R"({"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":)" + std::to_string(rank) +
           R"(,"world_size":)" + std::to_string(o.ranks) +
           R"(},"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3","totalGlobalMem":85000000000,"computeMajor":9,"computeMinor":0,"numSms":132}],"traceEvents":[)" +
           events + "]}";
}

// The ranks fused into one file the way TraceLens's TraceFuse merges them: only "traceEvents" are
// kept (no distributedInfo, no deviceProperties), every event with args gets args.rank, pids and
// correlation / External ids are offset per rank, and GPU device ids stay as recorded: every rank's
// kernels are on "device 0", as on a multi-host job.
inline std::string kinetoFusedJob(const KinetoJobOptions& o) {
    std::string fused;
    for (int r = 0; r < o.ranks; ++r) {
        std::string trace = kinetoRankTrace(o, r);
        const std::string open = "\"traceEvents\":[";
        std::string events = trace.substr(trace.find(open) + open.size());
        events.resize(events.size() - 2);  // "]}"
        auto offsetNumbers = [&](const std::string& key, std::int64_t offset) {
            std::string out;
            std::size_t pos = 0;
            for (std::size_t at; (at = events.find(key, pos)) != std::string::npos;) {
                const std::size_t digits = at + key.size();
                std::size_t end = digits;
                while (end < events.size() && events[end] >= '0' && events[end] <= '9') {
                    ++end;
                }
                out += events.substr(pos, digits - pos) +
                       std::to_string(std::stoll(events.substr(digits, end - digits)) + offset);
                pos = end;
            }
            events = out + events.substr(pos);
        };
        offsetNumbers("\"pid\":", 1000 * r);
        offsetNumbers("\"correlation\":", 100000 * r);
        offsetNumbers("\"External id\":", 100000 * r);
        std::string tagged;
        const std::string args = "\"args\":{";
        std::size_t pos = 0;
        for (std::size_t at; (at = events.find(args, pos)) != std::string::npos; pos = at + args.size()) {
            tagged += events.substr(pos, at + args.size() - pos) + "\"rank\":" + std::to_string(r) + ",";
        }
        tagged += events.substr(pos);
        fused += (fused.empty() ? "" : ",\n") + tagged;
    }
    return "{\"traceEvents\":[" + fused + "]}";
}

inline void writeKinetoJob(const KinetoJobOptions& o, const std::string& folder) {
    for (int r = 0; r < o.ranks; ++r) {
        std::ofstream(folder + "/rank-" + std::to_string(r) + ".pt.trace.json") << kinetoRankTrace(o, r);
    }
}

}  // namespace chokepoint::testjob
