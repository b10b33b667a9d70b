// Reading the Python stack sampler's files and putting their samples into a model
// (collectors/pystacks). The files come from the job's processes: untrusted.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "collectors/pystacks/PyStacksMerge.h"

namespace chokepoint::collectors {
namespace {

std::string writeFile(const std::string& name, const std::string& text) {
    const std::string dir = testing::TempDir() + "/pystacks-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
}

const char* kGood = R"({"v":1,"pid":100,"ppid":1,"argv":["train.py"],"clock":"CLOCK_MONOTONIC","hz":100})"
                    "\n"
                    R"({"f":[0,"train.py","<module>",12]})"
                    "\n"
                    R"({"f":[1,"torch/utils/data/dataloader.py","__next__",631]})"
                    "\n"
                    R"({"s":[0,[1,0]]})"
                    "\n"
                    R"({"thread":[100,"MainThread"]})"
                    "\n"
                    R"({"t":1000,"tid":100,"s":0})"
                    "\n"
                    R"({"t":2000,"tid":100,"s":0})"
                    "\n"
                    R"({"t":9000,"tid":100,"s":0})"
                    "\n"
                    R"({"end":true,"dropped":3})"
                    "\n";

TEST(PyStacksFileTest, FramesStacksSamplesAndThreadNamesAreRead) {
    auto p = readPyStacksFile(writeFile("100.pystacks", kGood));
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->pid, 100);
    EXPECT_EQ(p->ppid, 1);
    ASSERT_EQ(p->frames.size(), 2u);
    EXPECT_EQ(p->frames[1].function, "__next__");
    ASSERT_EQ(p->stacks.size(), 1u);
    EXPECT_EQ(p->stacks[0], (std::vector<std::uint32_t>{1, 0}));  // leaf first
    EXPECT_EQ(p->samples.size(), 3u);
    EXPECT_TRUE(p->ended);
    EXPECT_EQ(p->droppedBySampler, 3u);
    EXPECT_EQ(p->badLines, 0u);
    ASSERT_EQ(p->threadNames.size(), 1u);
    EXPECT_EQ(p->threadNames[0].second, "MainThread");
}

TEST(PyStacksFileTest, BadLinesAreSkippedCountedAndTheFirstIsNamed) {
    std::string text = kGood;
    text += "not json\n";
    text += R"({"t":3000,"tid":100,"s":7})"
            "\n";  // a stack never defined
    text += R"({"s":[1,[0,99]]})"
            "\n";  // a frame never defined
    text += R"({"f":[5,"x.py","f",1]})"
            "\n";  // ids must count up
    text += std::string(200, '{') + "\n";
    auto p = readPyStacksFile(writeFile("101.pystacks", text));
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->badLines, 5u);
    EXPECT_NE(p->firstProblem.find("101.pystacks: line 10"), std::string::npos) << p->firstProblem;
    EXPECT_EQ(p->samples.size(), 3u);
    EXPECT_EQ(p->stacks.size(), 1u);
}

TEST(PyStacksFileTest, AFileThatIsNotOneSaysSo) {
    auto p = readPyStacksFile(writeFile("102.pystacks", "garbage\n"));
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().message.find("102.pystacks: line 1"), std::string::npos) << p.error().message;
    EXPECT_FALSE(readPyStacksFile(testing::TempDir() + "/no-such.pystacks").ok());
}

TEST(PyStacksFileTest, TheProcessTreeFollowsParents) {
    std::vector<PyStacksProcess> all(4);
    all[0].pid = 10;
    all[0].ppid = 1;
    all[1].pid = 11;
    all[1].ppid = 10;  // DataLoader worker
    all[2].pid = 12;
    all[2].ppid = 11;  // its child
    all[3].pid = 20;
    all[3].ppid = 1;  // another job
    auto tree = processTree(all, 10);
    ASSERT_EQ(tree.size(), 3u);
    EXPECT_EQ(tree[2]->pid, 12);
}

TEST(PyStacksMergeTest, SamplesInsideTheWindowBecomeTheModelsStackSamples) {
    auto p = readPyStacksFile(writeFile("103.pystacks", kGood));
    ASSERT_TRUE(p.ok()) << p.error().message;
    core::TraceModel model;
    PyStacksMerged merged = addPyStacks(model, {&p.value()}, 0, 5000);
    EXPECT_EQ(merged.samples, 2u);
    EXPECT_EQ(merged.outsideWindow, 1u);
    ASSERT_EQ(model.stackSamples.size(), 2u);
    auto frames = model.stack(model.stackSamples.stack[0]);
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(model.text(model.stackFrames[frames[0]].function), "__next__");  // leaf first
    EXPECT_EQ(model.threads[model.stackSamples.thread[0]].name, "MainThread");
    EXPECT_EQ(model.stats.count("pystacks.dropped_samples"), 3);
}

}  // namespace
}  // namespace chokepoint::collectors
