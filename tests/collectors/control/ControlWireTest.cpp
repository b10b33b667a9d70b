// The agent's hand-written control codec (ControlWire) against the protoc-generated classes the CLI
// and the GUI use: every message encoded by one is decoded by the other, both ways, with the same
// bytes; unknown fields are skipped; malformed bytes give an error naming the offset, never a crash,
// and the codec refuses whatever protobuf refuses.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>

#include "collectors/control/ControlWire.h"
#include "collectors/control/proto/control.pb.h"

namespace chokepoint::collectors {
namespace {

// Field-by-field conversions between the two representations (written independently of the codec).
control::Envelope toProto(const wire::Envelope& in) {
    control::Envelope out;
    if (const auto* hello = std::get_if<wire::Hello>(&in)) {
        out.mutable_hello()->set_protocol_version(hello->protocolVersion);
        out.mutable_hello()->set_client_name(hello->clientName);
    } else if (std::holds_alternative<wire::StatusRequest>(in)) {
        out.mutable_status_request();
    } else if (const auto* status = std::get_if<wire::Status>(&in)) {
        control::Status* s = out.mutable_status();
        s->set_protocol_version(status->protocolVersion);
        s->set_pid(status->pid);
        for (const auto& a : status->commandLine) {
            s->add_command_line(a);
        }
        for (const auto& g : status->gpuNames) {
            s->add_gpu_names(g);
        }
        s->set_state(static_cast<control::AgentState>(status->state));
        s->set_agent_version(status->agentVersion);
        s->set_host_name(status->hostName);
        s->set_capture_id(status->captureId);
        s->set_cupti_holder(status->cuptiHolder);
        s->set_cupti_available(status->cuptiAvailable);
        s->set_steps_seen(status->stepsSeen);
    } else if (const auto* start = std::get_if<wire::StartCapture>(&in)) {
        control::StartCapture* s = out.mutable_start_capture();
        s->set_duration_ms(start->durationMs);
        s->set_steps(start->steps);
        s->set_kinds(start->kinds);
        s->set_start_at_next_step(start->startAtNextStep);
        s->set_step_marker(start->stepMarker);
        s->set_host_sample_hz(start->hostSampleHz);
        s->set_delay_ms(start->delayMs);
        s->set_after_steps(start->afterSteps);
    } else if (std::holds_alternative<wire::StopCapture>(in)) {
        out.mutable_stop_capture();
    } else if (const auto* chunk = std::get_if<wire::Chunk>(&in)) {
        control::Chunk* c = out.mutable_chunk();
        c->set_capture_id(chunk->captureId);
        c->set_seq(chunk->seq);
        c->set_data(chunk->data);
        c->set_records(chunk->records);
    } else if (const auto* done = std::get_if<wire::CaptureDone>(&in)) {
        control::CaptureDone* d = out.mutable_capture_done();
        d->set_capture_id(done->captureId);
        d->set_ok(done->ok);
        d->set_message(done->message);
        d->set_kernels(done->kernels);
        d->set_api_calls(done->apiCalls);
        d->set_ranges(done->ranges);
        d->set_dropped_records(done->droppedRecords);
        d->set_steps(done->steps);
        d->set_duration_ns(done->durationNs);
    } else if (const auto* error = std::get_if<wire::Error>(&in)) {
        out.mutable_error()->set_code(static_cast<control::ErrorCode>(error->code));
        out.mutable_error()->set_text(error->text);
    }
    return out;
}

wire::Envelope fromProto(const control::Envelope& in) {
    switch (in.body_case()) {
        case control::Envelope::kHello:
            return wire::Hello{in.hello().protocol_version(), in.hello().client_name()};
        case control::Envelope::kStatusRequest:
            return wire::StatusRequest{};
        case control::Envelope::kStatus: {
            const control::Status& s = in.status();
            wire::Status m;
            m.protocolVersion = s.protocol_version();
            m.pid = s.pid();
            m.commandLine.assign(s.command_line().begin(), s.command_line().end());
            m.gpuNames.assign(s.gpu_names().begin(), s.gpu_names().end());
            m.state = static_cast<wire::AgentState>(s.state());
            m.agentVersion = s.agent_version();
            m.hostName = s.host_name();
            m.captureId = s.capture_id();
            m.cuptiHolder = s.cupti_holder();
            m.cuptiAvailable = s.cupti_available();
            m.stepsSeen = s.steps_seen();
            return m;
        }
        case control::Envelope::kStartCapture: {
            const control::StartCapture& s = in.start_capture();
            return wire::StartCapture{s.duration_ms(),        s.steps(),       s.kinds(),
                                      s.start_at_next_step(), s.step_marker(), s.host_sample_hz(),
                                      s.delay_ms(),           s.after_steps()};
        }
        case control::Envelope::kStopCapture:
            return wire::StopCapture{};
        case control::Envelope::kChunk:
            return wire::Chunk{in.chunk().capture_id(), in.chunk().seq(), in.chunk().data(),
                               in.chunk().records()};
        case control::Envelope::kCaptureDone: {
            const control::CaptureDone& d = in.capture_done();
            return wire::CaptureDone{d.capture_id(),      d.ok(),        d.message(),
                                     d.kernels(),         d.api_calls(), d.ranges(),
                                     d.dropped_records(), d.steps(),     d.duration_ns()};
        }
        case control::Envelope::kError:
            return wire::Error{static_cast<wire::ErrorCode>(in.error().code()), in.error().text()};
        case control::Envelope::BODY_NOT_SET:
            break;
    }
    ADD_FAILURE() << "envelope without a body";
    return wire::StatusRequest{};
}

// One of each message, with values that exercise every encoding: negatives (10-byte varints),
// values over 32 bits, unset (default) fields, empty and repeated strings, binary bytes.
std::vector<wire::Envelope> samples() {
    std::vector<wire::Envelope> out;
    out.push_back(wire::Hello{1, "chokepoint-cli"});
    out.push_back(wire::Hello{});
    out.push_back(wire::StatusRequest{});
    wire::Status s;
    s.protocolVersion = 1;
    s.pid = 4'194'301;
    s.commandLine = {"python", "train.py", "", "--lr=3e-4 µ"};
    s.gpuNames = {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"};
    s.state = wire::AGENT_STATE_CAPTURING;
    s.agentVersion = "0.9.0";
    s.hostName = "node-17";
    s.captureId = (std::uint64_t{1} << 40) + 3;
    s.cuptiHolder = "CUPTI for PyTorch";
    s.cuptiAvailable = true;
    s.stepsSeen = -5;
    out.push_back(s);
    out.push_back(wire::Status{});
    out.push_back(wire::StartCapture{~std::uint64_t{0}, 20,
                                     wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_NVTX, true,
                                     "ProfilerStep#", 1000, 2500, 7});
    out.push_back(wire::StartCapture{});
    out.push_back(wire::StopCapture{});
    std::string binary;
    for (int i = 0; i < 70'000; ++i) {
        binary.push_back(static_cast<char>(i * 131 % 256));
    }
    out.push_back(wire::Chunk{7, 12345678901ull, binary, 4096});
    out.push_back(wire::Chunk{1, 0, "", 0});
    out.push_back(wire::CaptureDone{7, true, "20 steps recorded", 1'000'000, 2'000'000, 300, 0, 20,
                                    std::int64_t{1} << 50});
    out.push_back(
        wire::CaptureDone{9, false, "", -1, -2, -3, -4, -5, std::numeric_limits<std::int64_t>::min()});
    out.push_back(wire::Error{wire::ERROR_CODE_CUPTI_BUSY, "CUPTI is held by 'CUPTI for PyTorch'"});
    out.push_back(wire::Error{static_cast<wire::ErrorCode>(42), "a code this build does not know"});
    return out;
}

TEST(ControlWire, HandWrittenBytesAreWhatProtobufWritesAndReads) {
    for (const wire::Envelope& sample : samples()) {
        const std::string ours = wire::encodeEnvelope(sample);
        const control::Envelope proto = toProto(sample);
        EXPECT_EQ(ours, proto.SerializeAsString()) << "message " << sample.index();
        control::Envelope parsed;
        ASSERT_TRUE(parsed.ParseFromString(ours)) << "message " << sample.index();
        EXPECT_TRUE(fromProto(parsed) == sample) << "message " << sample.index();
    }
}

TEST(ControlWire, DecodesWhatProtobufWrites) {
    for (const wire::Envelope& sample : samples()) {
        const std::string bytes = toProto(sample).SerializeAsString();
        core::Result<wire::Envelope> decoded = wire::decodeEnvelope(bytes);
        ASSERT_TRUE(decoded.ok()) << decoded.error().message;
        EXPECT_TRUE(decoded.value() == sample) << "message " << sample.index();
    }
}

TEST(ControlWire, ProtobufParsesItsOwnMessagesThroughTheCodecBackAndForth) {
    // CLI -> agent -> CLI: a StartCapture built by the CLI, decoded by the agent, answered.
    control::Envelope request;
    request.mutable_start_capture()->set_steps(3);
    request.mutable_start_capture()->set_start_at_next_step(true);
    request.mutable_start_capture()->set_step_marker("chokepoint:step");
    core::Result<wire::Envelope> atAgent = wire::decodeEnvelope(request.SerializeAsString());
    ASSERT_TRUE(atAgent.ok());
    const auto* start = std::get_if<wire::StartCapture>(&atAgent.value());
    ASSERT_NE(start, nullptr);
    EXPECT_EQ(start->steps, 3u);
    EXPECT_TRUE(start->startAtNextStep);
    EXPECT_EQ(start->stepMarker, "chokepoint:step");
    control::Envelope reply;
    ASSERT_TRUE(reply.ParseFromString(wire::encodeEnvelope(wire::Error{wire::ERROR_CODE_BUSY, "busy"})));
    ASSERT_TRUE(reply.has_error());
    EXPECT_EQ(reply.error().code(), control::ERROR_CODE_BUSY);
    EXPECT_EQ(reply.error().text(), "busy");
}

TEST(ControlWire, UnknownFieldsAreSkippedAndRepeatedFieldsFollowProtobuf) {
    // A newer client's Hello: unknown varint, fixed64, fixed32 and length fields around the known ones.
    std::string hello;
    hello += std::string("\x08\x01", 2);                       // protocol_version = 1
    hello += std::string("\xb8\x06\x05", 3);                   // field 103, varint
    hello += std::string("\x79", 1) + std::string(8, '\x01');  // field 15, fixed64
    hello += std::string("\x7d", 1) + std::string(4, '\x02');  // field 15, fixed32
    hello += std::string(
        "\x12\x03"
        "cli",
        5);  // client_name = "cli"
    hello += std::string(
        "\x12\x03"
        "gui",
        5);                               // client_name again: the last wins
    hello += std::string("\x10\x07", 2);  // client_name as a varint: unknown, skipped
    std::string envelope = std::string("\x0a", 1) + static_cast<char>(hello.size()) + hello;
    envelope += std::string("\xa2\x06\x02\x08\x01", 5);  // Envelope field 100 (unknown message)

    control::Envelope proto;
    ASSERT_TRUE(proto.ParseFromString(envelope));
    core::Result<wire::Envelope> ours = wire::decodeEnvelope(envelope);
    ASSERT_TRUE(ours.ok()) << ours.error().message;
    EXPECT_TRUE(ours.value() == fromProto(proto));
    const auto& h = std::get<wire::Hello>(ours.value());
    EXPECT_EQ(h.protocolVersion, 1u);
    EXPECT_EQ(h.clientName, "gui");

    // The same oneof member twice is merged; a different member replaces it (protobuf's rules).
    control::Envelope a;
    a.mutable_status()->set_pid(11);
    a.mutable_status()->add_command_line("python");
    control::Envelope b;
    b.mutable_status()->set_host_name("node");
    b.mutable_status()->add_command_line("train.py");
    const std::string merged = a.SerializeAsString() + b.SerializeAsString();
    ASSERT_TRUE(proto.ParseFromString(merged));
    ours = wire::decodeEnvelope(merged);
    ASSERT_TRUE(ours.ok());
    EXPECT_TRUE(ours.value() == fromProto(proto));
    EXPECT_EQ(std::get<wire::Status>(ours.value()).commandLine.size(), 2u);
    control::Envelope c;
    c.mutable_stop_capture();
    const std::string replaced = merged + c.SerializeAsString();
    ASSERT_TRUE(proto.ParseFromString(replaced));
    ours = wire::decodeEnvelope(replaced);
    ASSERT_TRUE(ours.ok());
    EXPECT_TRUE(ours.value() == fromProto(proto));
    EXPECT_TRUE(std::holds_alternative<wire::StopCapture>(ours.value()));
}

TEST(ControlWire, MalformedBytesGiveAnErrorNamingTheOffset) {
    struct Case {
        std::string bytes;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"", "no message body"},
        {std::string("\x08\x01", 2), "no message body"},                         // only an unknown varint
        {std::string("\x0a", 1), "byte 0: truncated length"},                    // Hello without its length
        {std::string("\x0a\x05\x08\x01", 4), "byte 0: field 1 claims 5 bytes"},  // length past the end
        {std::string("\x0a\x02\x08\x80", 4), "byte 2: truncated or overlong varint"},
        {std::string("\x0a\x01\x80", 3), "byte 2: truncated or overlong field tag"},
        {std::string("\x0a\x02\x00\x00", 4), "byte 2: field number 0"},
        {std::string("\x0b\x0c", 2), "byte 0: wire type 3"},  // a group
        {std::string("\x0f", 1), "byte 0: wire type 7"},
        {std::string("\x2a\x02\x19\x01", 4), "byte 2: truncated fixed-width"},
        {std::string(11, '\xff'), "byte 0: truncated or overlong field tag"},
    };
    for (const Case& c : cases) {
        core::Result<wire::Envelope> r = wire::decodeEnvelope(c.bytes);
        ASSERT_FALSE(r.ok()) << "bytes of case '" << c.expected << "' decoded";
        EXPECT_NE(r.error().message.find(c.expected), std::string::npos) << r.error().message;
        EXPECT_EQ(r.error().message.rfind("control message: ", 0), 0u) << r.error().message;
    }
}

TEST(ControlWire, EveryTruncationAndRandomCorruptionIsHandled) {
    // Whatever protobuf refuses, the codec refuses (it may refuse more: groups, invalid field
    // numbers in unknown fields); whatever both accept decodes to the same message.
    google::protobuf::LogSilencer quiet;  // protobuf logs every string that is not UTF-8
    std::mt19937 rng(1234);
    int agreedOk = 0;
    int refused = 0;
    auto check = [&](const std::string& bytes) {
        control::Envelope proto;
        const bool protoOk =
            proto.ParseFromString(bytes) && proto.body_case() != control::Envelope::BODY_NOT_SET;
        core::Result<wire::Envelope> ours = wire::decodeEnvelope(bytes);
        if (!protoOk) {
            EXPECT_FALSE(ours.ok()) << "the codec accepted bytes protobuf refuses";
        }
        if (protoOk && ours.ok()) {
            EXPECT_TRUE(ours.value() == fromProto(proto));
            ++agreedOk;
        }
        refused += ours.ok() ? 0 : 1;
    };
    for (const wire::Envelope& sample : samples()) {
        std::string bytes = wire::encodeEnvelope(sample);
        if (bytes.size() > 4096) {
            bytes = wire::encodeEnvelope(wire::Chunk{1, 2, std::string(300, 'x'), 3});
        }
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            check(bytes.substr(0, n));
        }
        for (int trial = 0; trial < 300; ++trial) {
            std::string mutated = bytes;
            const int flips = 1 + static_cast<int>(rng() % 4);
            for (int f = 0; f < flips; ++f) {
                mutated[rng() % mutated.size()] = static_cast<char>(rng() % 256);
            }
            check(mutated);
        }
    }
    EXPECT_GT(agreedOk, 100);
    EXPECT_GT(refused, 100);
}

TEST(ControlWire, StringsThatAreNotUtf8AreRefusedOnReadAndReplacedOnWrite) {
    // A command line may hold any bytes; the client's protobuf refuses a string field that is not
    // UTF-8, so the agent writes U+FFFD for each byte that is not part of a valid sequence.
    wire::Status status;
    status.commandLine = {"python", std::string("caf\xe9.py", 7), std::string("\xed\xa0\x80", 3)};
    status.hostName = "n\xc3\xa9ud";  // valid UTF-8 stays as is
    control::Envelope parsed;
    ASSERT_TRUE(parsed.ParseFromString(wire::encodeEnvelope(status)));
    ASSERT_EQ(parsed.status().command_line_size(), 3);
    EXPECT_EQ(parsed.status().command_line(1), "caf\xef\xbf\xbd.py");
    EXPECT_EQ(parsed.status().command_line(2), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
    EXPECT_EQ(parsed.status().host_name(), "n\xc3\xa9ud");

    // Reading: a Hello whose client_name is Latin-1 is refused, naming the offset; Chunk.data is
    // bytes and takes anything.
    google::protobuf::LogSilencer quiet;
    const std::string latin1 = std::string("\x0a\x05\x12\x03", 4) + std::string("\xe9t\xe9", 3);
    core::Result<wire::Envelope> r = wire::decodeEnvelope(latin1);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("byte 4: field 2 is a string that is not valid UTF-8"),
              std::string::npos)
        << r.error().message;
    core::Result<wire::Envelope> chunk = wire::decodeEnvelope(std::string("\x32\x04\x1a\x02\xff\xfe", 6));
    ASSERT_TRUE(chunk.ok()) << chunk.error().message;
    EXPECT_EQ(std::get<wire::Chunk>(chunk.value()).data, std::string("\xff\xfe", 2));
}

}  // namespace
}  // namespace chokepoint::collectors
