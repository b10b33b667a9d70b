// The .cptrace encoder writes protobuf wire format by hand (core/format/ProtoWireWriter.h), so the
// collector agent needs no protobuf runtime. Here every chunk it writes is parsed with the
// protoc-generated chokepoint.cptrace.Chunk (full runtime) and serialized again: the bytes must be
// identical, which shows the hand-written bytes are exactly what protobuf would write.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/format/CptraceChunkEncoder.h"
#include "core/format/CptraceFormat.h"
#include "core/format/CptraceWire.h"
#include "proto/cptrace.pb.h"
#include "tests/core/format/ModelCompare.h"

namespace chokepoint::formattest {
namespace {

// Payloads of the uncompressed frames in `bytes` (after the 16-byte header, if any).
std::vector<std::string> payloads(const std::string& bytes, std::size_t pos) {
    std::vector<std::string> out;
    while (pos < bytes.size()) {
        std::uint64_t n = 0;
        EXPECT_EQ(core::cptrace_wire::readVarint(bytes, pos, n), core::cptrace_wire::VarintStatus::Ok);
        EXPECT_GE(n, 5u);
        if (n < 5 || pos + n > bytes.size()) {
            ADD_FAILURE() << "frame at byte " << pos << " runs past the end";
            break;
        }
        EXPECT_EQ(static_cast<std::uint8_t>(bytes[pos + 4]),
                  static_cast<std::uint8_t>(core::CptraceChunkEncoding::Protobuf));
        out.push_back(bytes.substr(pos + 5, n - 5));
        pos += n;
    }
    return out;
}

void expectProtobufWritesTheSameBytes(const std::vector<std::string>& chunks) {
    ASSERT_FALSE(chunks.empty());
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        chokepoint::cptrace::Chunk parsed;
        ASSERT_TRUE(parsed.ParseFromString(chunks[i])) << "chunk " << i;
        EXPECT_EQ(parsed.seq(), i);
        std::string again;
        ASSERT_TRUE(parsed.SerializeToString(&again));
        EXPECT_EQ(again.size(), chunks[i].size()) << "chunk " << i;
        EXPECT_TRUE(again == chunks[i]) << "chunk " << i << " differs from protobuf's serialization";
    }
}

core::CptraceEncoderOptions uncompressed() {
    core::CptraceEncoderOptions options;
    options.compress = false;
    return options;
}

TEST(CptraceProtobufBytes, WholeModelChunksAreByteIdenticalToProtobuf) {
    TraceModel model = fullModel(3);
    model.finalize();
    core::CptraceChunkEncoder encoder(uncompressed());
    std::string bytes;
    ASSERT_TRUE(encoder.encodeModel(model, 7, [&](std::string_view piece) {
        bytes.append(piece);
        return true;
    }));
    std::vector<std::string> chunks = payloads(bytes, core::kCptraceHeaderSize);
    EXPECT_EQ(chunks.size(), encoder.chunksEncoded());
    expectProtobufWritesTheSameBytes(chunks);

    // Spot checks through the generated accessors: the first chunk carries the dimensions and the
    // totals hint, the last one the footer.
    chokepoint::cptrace::Chunk first;
    ASSERT_TRUE(first.ParseFromString(chunks.front()));
    ASSERT_EQ(static_cast<std::size_t>(first.devices_size()), model.devices.size());
    EXPECT_EQ(first.devices(0).name(), model.devices[0].name);
    EXPECT_EQ(first.devices(0).sm_count(), model.devices[0].smCount);
    EXPECT_EQ(first.totals_hint().kernels(), model.kernels.size());
    EXPECT_EQ(first.metadata().host_name(), model.metadata.hostName);
    chokepoint::cptrace::Chunk last;
    ASSERT_TRUE(last.ParseFromString(chunks.back()));
    ASSERT_TRUE(last.has_footer());
    EXPECT_EQ(last.footer().kernels(), model.kernels.size());
    EXPECT_EQ(last.footer().chunk_count(), chunks.size() - 1);
}

TEST(CptraceProtobufBytes, StreamedBatchesAreByteIdenticalToProtobuf) {
    // Batches as the agent sends them: links local to the batch, strings and threads sent once.
    TraceModel a = fullModel(1);
    TraceModel b = fullModel(2);
    b.metadata = {};
    core::CptraceChunkEncoder encoder(uncompressed());
    std::string bytes = encoder.encodeChunk(a);
    bytes += encoder.encodeChunk(b);
    bytes += encoder.encodeChunk(TraceModel{});  // an empty batch
    bytes += encoder.encodeFooter();
    std::vector<std::string> chunks = payloads(bytes, 0);
    ASSERT_EQ(chunks.size(), 4u);
    expectProtobufWritesTheSameBytes(chunks);
    chokepoint::cptrace::Chunk second;
    ASSERT_TRUE(second.ParseFromString(chunks[1]));
    EXPECT_FALSE(second.has_metadata());  // unchanged metadata is not sent again
    EXPECT_GT(second.kernels().start_delta_size(), 0);
    EXPECT_EQ(second.devices_size(), 0);  // nor an unchanged device
}

}  // namespace
}  // namespace chokepoint::formattest
