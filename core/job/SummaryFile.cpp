#include "core/job/SummaryFile.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "proto/cpsum.pb.h"

namespace chokepoint::job {
namespace {

constexpr std::size_t kMagicSize = sizeof(kSummaryMagic);

template <class Array>
void putWork(const Array& work, google::protobuf::RepeatedField<std::int64_t>* out) {
    for (core::DurationNs ns : work) {
        out->Add(ns);
    }
}

template <class Array>
bool getWork(const google::protobuf::RepeatedField<std::int64_t>& in, Array& work) {
    if (in.size() > static_cast<int>(work.size())) {
        return false;  // a newer writer's kinds would be misread: refuse rather than guess
    }
    for (int i = 0; i < in.size(); ++i) {
        work[static_cast<std::size_t>(i)] = in.Get(i);
    }
    return true;
}

}  // namespace

std::string encodeSummary(const RankSummary& s) {
    cpsum::RankSummary m;
    m.set_schema_version(s.schemaVersion);
    m.set_rank(s.rank);
    m.set_rank_source(static_cast<int>(s.rankSource));
    m.set_world_size(s.worldSize);
    m.set_backend(s.backend);
    m.set_source_path(s.sourcePath);
    m.set_host_name(s.hostName);
    m.set_pid(s.pid);
    m.set_process_name(s.processName);
    m.set_device_index(s.deviceIndex);
    m.set_device_name(s.deviceName);
    m.set_device_id(s.deviceId);
    m.set_link_bytes_per_second(s.linkBytesPerSecond);
    m.set_window_start_ns(s.window.startNs);
    m.set_window_end_ns(s.window.endNs);
    for (const RankStep& step : s.steps) {
        cpsum::Step* out = m.add_steps();
        out->set_number(step.number);
        out->set_name(step.name);
        out->set_start_ns(step.range.startNs);
        out->set_end_ns(step.range.endNs);
        out->set_busy_ns(step.busyNs);
        out->set_collective_ns(step.collectiveNs);
        putWork(step.workNs, out->mutable_work_ns());
        out->set_excluded_reason(step.excludedReason);
    }
    m.set_step_source(s.stepSource);
    m.set_busy_fraction(s.busyFraction);
    putWork(s.workNs, m.mutable_work_ns());
    m.set_exposed_communication_ns(s.exposedCommunicationNs);
    m.set_has_exposed_communication_share(s.exposedCommunicationShare.has_value());
    m.set_exposed_communication_share(s.exposedCommunicationShare.value_or(0));
    m.set_verdict(s.verdict);
    m.set_headline(s.headline);
    m.set_has_mfu(s.mfu.has_value());
    m.set_mfu(s.mfu.value_or(0));
    for (const RankDevice& d : s.devices) {
        cpsum::Device* out = m.add_devices();
        out->set_device_index(d.deviceIndex);
        out->set_device_name(d.deviceName);
        out->set_busy_fraction(d.busyFraction);
        out->set_idle_fraction(d.idleFraction);
        out->set_mean_step_ns(d.meanStepNs);
        out->set_verdict(d.verdict);
        out->set_headline(d.headline);
    }
    for (const RankCollective& c : s.collectives) {
        cpsum::Collective* out = m.add_collectives();
        out->set_kind(c.kind);
        out->set_group_key(c.groupKey);
        out->set_group_size(c.groupSize);
        out->set_size_bytes(c.sizeBytes);
        out->set_dtype(c.dtype);
        out->set_start_ns(c.startNs);
        out->set_end_ns(c.endNs);
        out->set_device_index(c.deviceIndex);
        out->set_stream_id(c.streamId);
        out->set_step_number(c.stepNumber);
        out->set_has_comms_id(c.hasCommsId);
        out->set_comms_id(c.commsId);
        out->set_seq(c.seq);
        cpsum::SegmentWork* w = out->mutable_before();
        w->set_segment_start_ns(c.before.segmentStartNs);
        w->set_starts_at_window_start(c.before.startsAtWindowStart);
        putWork(c.before.ns, w->mutable_work_ns());
        w->set_kernel_count(c.before.kernelCount);
        w->set_busy_at_start_ns(c.before.busyAtStartNs);
        for (const FrameTime& f : c.before.topHostFrames) {
            cpsum::FrameTime* frame = w->add_top_host_frames();
            frame->set_name(f.name);
            frame->set_self_ns(f.selfNs);
        }
    }
    for (const std::string& warning : s.warnings) {
        m.add_warnings(warning);
    }
    std::string bytes(kSummaryMagic, kMagicSize);
    bytes += m.SerializeAsString();
    return bytes;
}

core::Result<RankSummary> decodeSummary(std::string_view bytes, const std::string& name) {
    if (bytes.size() < kMagicSize || std::memcmp(bytes.data(), kSummaryMagic, kMagicSize) != 0) {
        return core::makeError(name + ": byte 0: not a .cpsum file (no CPSUM001 magic)");
    }
    cpsum::RankSummary m;
    if (!m.ParseFromArray(bytes.data() + kMagicSize, static_cast<int>(bytes.size() - kMagicSize))) {
        return core::makeError(name + ": byte " + std::to_string(kMagicSize) +
                               ": the summary message is truncated or corrupt");
    }
    if (m.schema_version() < 1 || m.schema_version() > kRankSummarySchemaVersion) {
        return core::makeError(name + ": schema version " + std::to_string(m.schema_version()) +
                               " is not supported (this build reads 1 to " +
                               std::to_string(kRankSummarySchemaVersion) + ")");
    }
    if (m.rank_source() < 0 || m.rank_source() > static_cast<int>(RankSource::Order)) {
        return core::makeError(name + ": field rank_source: unknown value " +
                               std::to_string(m.rank_source()));
    }
    RankSummary s;
    s.schemaVersion = m.schema_version();
    s.rank = m.rank();
    s.rankSource = static_cast<RankSource>(m.rank_source());
    s.worldSize = m.world_size();
    s.backend = m.backend();
    s.sourcePath = m.source_path();
    s.hostName = m.host_name();
    s.pid = m.pid();
    s.processName = m.process_name();
    s.deviceIndex = static_cast<std::int16_t>(m.device_index());
    s.deviceName = m.device_name();
    s.deviceId = m.device_id();
    s.linkBytesPerSecond = m.link_bytes_per_second();
    s.window = {m.window_start_ns(), m.window_end_ns()};
    bool workOk = getWork(m.work_ns(), s.workNs);
    for (const cpsum::Step& in : m.steps()) {
        RankStep step;
        step.number = in.number();
        step.name = in.name();
        step.range = {in.start_ns(), in.end_ns()};
        step.busyNs = in.busy_ns();
        step.collectiveNs = in.collective_ns();
        workOk = workOk && getWork(in.work_ns(), step.workNs);
        step.excludedReason = in.excluded_reason();
        s.steps.push_back(std::move(step));
    }
    s.stepSource = m.step_source();
    s.busyFraction = m.busy_fraction();
    s.exposedCommunicationNs = m.exposed_communication_ns();
    if (m.has_exposed_communication_share()) {
        s.exposedCommunicationShare = m.exposed_communication_share();
    }
    s.verdict = m.verdict();
    s.headline = m.headline();
    if (m.has_mfu()) {
        s.mfu = m.mfu();
    }
    for (const cpsum::Device& in : m.devices()) {
        RankDevice d;
        d.deviceIndex = static_cast<std::int16_t>(in.device_index());
        d.deviceName = in.device_name();
        d.busyFraction = in.busy_fraction();
        d.idleFraction = in.idle_fraction();
        d.meanStepNs = in.mean_step_ns();
        d.verdict = in.verdict();
        d.headline = in.headline();
        s.devices.push_back(std::move(d));
    }
    for (const cpsum::Collective& in : m.collectives()) {
        RankCollective c;
        c.kind = in.kind();
        c.groupKey = in.group_key();
        c.groupSize = in.group_size();
        c.sizeBytes = in.size_bytes();
        c.dtype = in.dtype();
        c.startNs = in.start_ns();
        c.endNs = in.end_ns();
        c.deviceIndex = static_cast<std::int16_t>(in.device_index());
        c.streamId = in.stream_id();
        c.stepNumber = in.step_number();
        c.hasCommsId = in.has_comms_id();
        c.commsId = in.comms_id();
        c.seq = in.has_comms_id() ? in.seq() : -1;
        c.before.segmentStartNs = in.before().segment_start_ns();
        c.before.startsAtWindowStart = in.before().starts_at_window_start();
        workOk = workOk && getWork(in.before().work_ns(), c.before.ns);
        c.before.kernelCount = in.before().kernel_count();
        c.before.busyAtStartNs = in.before().busy_at_start_ns();
        for (const cpsum::FrameTime& f : in.before().top_host_frames()) {
            c.before.topHostFrames.push_back({f.name(), f.self_ns()});
        }
        s.collectives.push_back(std::move(c));
    }
    if (!workOk) {
        return core::makeError(name + ": field work_ns: more kinds of work than this build knows");
    }
    for (const std::string& warning : m.warnings()) {
        s.warnings.push_back(warning);
    }
    return s;
}

core::Status writeSummaryFile(const RankSummary& summary, const std::string& path) {
    const std::string bytes = encodeSummary(summary);
    const std::string temporary = path + ".partial";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) {
            return core::makeError(path + ": cannot open for writing");
        }
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            return core::makeError(path + ": write failed (disk full?)");
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        return core::makeError(path + ": cannot replace the file");
    }
    return core::Ok{};
}

core::Result<RankSummary> readSummaryFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return core::makeError(path + ": cannot open");
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return decodeSummary(bytes, path);
}

}  // namespace chokepoint::job
