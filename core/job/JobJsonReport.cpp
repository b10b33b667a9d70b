#include <cmath>

#include "core/base/JsonEscape.h"
#include "core/job/JobReportWriters.h"

namespace chokepoint::job {
namespace {

// A small writer for one JSON object: keys in the order written, commas handled.
class Json {
public:
    Json& open(char bracket) {
        comma();
        m_out.push_back(bracket);
        m_first = true;
        return *this;
    }
    Json& close(char bracket) {
        m_out.push_back(bracket);
        m_first = false;
        return *this;
    }
    Json& key(std::string_view name) {
        comma();
        core::appendJsonString(m_out, name);
        m_out.push_back(':');
        m_first = true;  // the value follows without a comma
        return *this;
    }
    Json& str(std::string_view text) {
        comma();
        core::appendJsonString(m_out, text);
        return *this;
    }
    Json& num(std::int64_t n) {
        comma();
        m_out += std::to_string(n);
        return *this;
    }
    Json& real(double x) {
        comma();
        if (!std::isfinite(x)) {
            m_out += "null";
        } else {
            char buffer[32];
            std::snprintf(buffer, sizeof(buffer), "%.6g", x);
            m_out += buffer;
        }
        return *this;
    }
    Json& boolean(bool b) {
        comma();
        m_out += b ? "true" : "false";
        return *this;
    }
    std::string take() { return std::move(m_out); }

private:
    void comma() {
        if (!m_first) {
            m_out.push_back(',');
        }
        m_first = false;
    }
    std::string m_out;
    bool m_first = true;
};

void workObject(Json& j, const std::array<core::DurationNs, kWorkKindCount>& work) {
    j.open('{');
    for (std::size_t k = 0; k < kWorkKindCount; ++k) {
        j.key(toString(static_cast<WorkKind>(k))).num(work[k]);
    }
    j.close('}');
}

}  // namespace

std::string writeJobJson(const JobReport& r) {
    Json j;
    j.open('{');
    j.key("worldSize").num(r.worldSize);
    j.key("rankCount").num(static_cast<std::int64_t>(r.ranks.size()));
    j.key("rankIdentity").str(r.rankIdentityNote);
    j.key("notOneJob").str(r.notOneJob);
    j.key("medianRank").num(r.medianRank);
    j.key("missingRanks").open('[');
    for (std::int32_t rank : r.missingRanks) {
        j.num(rank);
    }
    j.close(']');
    j.key("problems").open('[');
    for (const RankProblem& p : r.problems) {
        j.open('{').key("path").str(p.path).key("rank").num(p.rank).key("message").str(p.message).close('}');
    }
    j.close(']');
    j.key("warnings").open('[');
    for (const std::string& w : r.warnings) {
        j.str(w);
    }
    j.close(']');

    j.key("clock").open('{');
    j.key("estimated").boolean(r.clock.estimated);
    j.key("sameHost").boolean(r.clock.sameHost);
    j.key("medianResidualNs").num(r.clock.medianResidualNs);
    j.key("maxResidualNs").num(r.clock.maxResidualNs);
    j.key("note").str(r.clock.note);
    j.close('}');
    j.key("collectiveMatching").open('{');
    j.key("method").str(r.matching.method);
    j.key("byCommsId").num(r.matching.byCommsId);
    j.key("byOrder").num(r.matching.byOrder);
    j.key("byEndTime").num(r.matching.byEnds);
    j.close('}');
    j.key("clockOffsetsNs").open('{');
    for (const JobRank& rank : r.ranks) {
        j.key(std::to_string(rank.summary->rank)).num(rank.clockOffsetNs);
    }
    j.close('}');

    j.key("ranks").open('[');
    for (const JobRank& rank : r.ranks) {
        const RankSummary& s = *rank.summary;
        j.open('{');
        j.key("rank").num(s.rank);
        j.key("rankSource").str(toString(s.rankSource));
        j.key("path").str(s.sourcePath);
        j.key("host").str(s.hostName);
        j.key("device").str(s.deviceName);
        j.key("stepNs").open('[');
        for (const RankStep& step : s.steps) {
            j.num(step.range.durationNs());
        }
        j.close(']');
        j.key("stepNumbers").open('[');
        for (const RankStep& step : s.steps) {
            j.num(step.number);
        }
        j.close(']');
        j.key("meanStepNs").num(rank.meanStepNs);
        j.key("medianStepNs").num(rank.medianStepNs);
        j.key("busyFraction").real(s.busyFraction);
        j.key("exposedCommunicationShare").real(s.exposedCommunicationShareOfStep());
        j.key("workNs");
        workObject(j, s.workNs);
        j.key("collectiveWaitNs").num(rank.collectiveWaitNs);
        j.key("collectiveTransferNs").num(rank.collectiveTransferNs);
        j.key("lateNs").num(rank.lateNs);
        j.key("timesLast").num(rank.timesLast);
        j.key("clockOffsetNs").num(rank.clockOffsetNs);
        j.key("verdict").str(s.verdict);
        j.key("headline").str(s.headline);
        j.key("devices").open('[');
        for (const RankDevice& d : s.devices) {
            j.open('{');
            j.key("deviceIndex").num(d.deviceIndex);
            j.key("deviceName").str(d.deviceName);
            j.key("busyFraction").real(d.busyFraction);
            j.key("idleFraction").real(d.idleFraction);
            j.key("meanStepNs").num(d.meanStepNs);
            j.key("verdict").str(d.verdict);
            j.key("headline").str(d.headline);
            j.close('}');
        }
        j.close(']');
        j.close('}');
    }
    j.close(']');

    j.key("collectives").open('[');
    for (const CollectiveStats& s : r.collectiveStats) {
        j.open('{');
        j.key("kind").str(s.kind);
        j.key("sizeBytes").num(s.sizeBytes);
        j.key("groupSize").num(s.groupSize);
        j.key("count").num(s.count);
        j.key("totalTransferNs").num(s.totalTransferNs);
        j.key("totalWaitNs").num(s.totalWaitNs);
        j.key("p50SkewNs").num(s.p50SkewNs);
        j.key("p95SkewNs").num(s.p95SkewNs);
        j.key("busBytesPerSecond").real(s.busBytesPerSecond);
        j.key("linkBytesPerSecond").real(s.linkBytesPerSecond);
        j.close('}');
    }
    j.close(']');
    j.key("matchedCollectiveCount").num(static_cast<std::int64_t>(r.collectives.size()));

    j.key("stragglers").open('[');
    for (const Straggler& s : r.stragglers) {
        j.open('{');
        j.key("rank").num(s.rank);
        j.key("lateNs").num(s.lateNs);
        j.key("latePerStepNs").num(s.latePerStepNs);
        j.key("arrivalLatePerStepNs").num(s.arrivalLatePerStepNs);
        j.key("shareLast").real(s.shareLast);
        j.key("cause").str(toString(s.cause));
        j.key("description").str(describe(s.cause));
        j.key("evidence").open('[');
        for (const std::string& e : s.evidence) {
            j.str(e);
        }
        j.close(']');
        j.key("excessNs");
        workObject(j, s.excessNs);
        j.key("excessKernelCount").num(s.excessKernelCount);
        j.key("topHostFrames").open('[');
        for (const FrameTime& f : s.topHostFrames) {
            j.open('{').key("name").str(f.name).key("selfNs").num(f.selfNs).close('}');
        }
        j.close(']');
        j.key("whatIfSavingPerStepNs").num(s.whatIfSavingPerStepNs);
        j.key("lateSteps").open('[');
        for (std::int64_t step : s.lateSteps) {
            j.num(step);
        }
        j.close(']');
        j.key("showRange")
            .open('{')
            .key("startNs")
            .num(s.showRange.startNs)
            .key("endNs")
            .num(s.showRange.endNs)
            .close('}');
        j.close('}');
    }
    j.close(']');
    j.key("noiseNs").num(r.noiseNs);
    j.key("startNs").num(
        r.startNs);  // job clock of the job's start: showRange minus this is on the trace's scale

    j.key("steps").open('[');
    for (const JobStep& step : r.steps) {
        j.open('{');
        j.key("number").num(step.number);
        j.key("rankStepNs").open('[');
        for (core::DurationNs ns : step.rankStepNs) {
            j.num(ns);
        }
        j.close(']');
        j.key("lastRank").num(step.lastRank);
        j.key("lastLateNs").num(step.lastLateNs);
        j.close('}');
    }
    j.close(']');

    j.key("whatIf").open('{');
    j.key("measuredStepNs").num(r.whatIf.measuredStepNs);
    j.key("idealStepNs").num(r.whatIf.idealStepNs);
    j.key("slowdownPerStepNs").num(r.whatIf.slowdownPerStepNs);
    j.key("savingByKindPerStepNs");
    workObject(j, r.whatIf.savingByKindPerStepNs);
    j.key("basis").str(r.whatIf.basis);
    j.close('}');

    j.key("verdict").open('{');
    j.key("bottleneck").str(toString(r.verdict.bottleneck));
    j.key("displayName").str(displayName(r.verdict.bottleneck));
    j.key("rankVerdict").str(r.verdict.rankVerdict);
    j.key("headline").str(r.verdict.headline);
    j.key("evidence").open('[');
    for (const std::string& e : r.verdict.evidence) {
        j.str(e);
    }
    j.close(']');
    j.key("fixes").open('[');
    for (const JobFix& fix : r.verdict.fixes) {
        j.open('{');
        j.key("title").str(fix.title);
        j.key("rank").num(fix.rank);
        j.key("detail").str(fix.detail);
        j.key("predictedStepNs").num(fix.predictedStepNs);
        j.key("basis").str(fix.basis);
        j.close('}');
    }
    j.close(']');
    j.close('}');
    j.close('}');
    return j.take();
}

}  // namespace chokepoint::job
