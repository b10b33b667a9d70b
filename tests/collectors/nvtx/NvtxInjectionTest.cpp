// NVTX injection through NVTX_INJECTION64_PATH with a real nvtx3 program (two modules, several
// threads, push/pop, start/end across threads, marks, domains, registered strings), plus the idle
// fast path and ring overflow.

#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct Dump {
    int exitCode = -1;
    std::map<std::string, long long> values;
    std::vector<std::string> ranges;  // name|domain|tid|durationNs
    std::multimap<std::string, std::vector<std::string>> byName;
};

Dump runHelper(const std::vector<std::string>& extraEnv) {
    char tmpl[] = "/tmp/cp-nvtx-XXXXXX";
    int fd = ::mkstemp(tmpl);
    ::close(fd);
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        env.emplace_back(*e);
    }
    env.push_back(std::string("NVTX_INJECTION64_PATH=") + NVTX_TEST_INJECTION);
    env.push_back(std::string("CHOKEPOINT_NVTX_TEST_OUT=") + tmpl);
    env.insert(env.end(), extraEnv.begin(), extraEnv.end());
    std::vector<char*> envp;
    for (auto& s : env) {
        envp.push_back(s.data());
    }
    envp.push_back(nullptr);
    std::string program = NVTX_HELPER;
    char* argv[] = {program.data(), nullptr};
    pid_t pid = 0;
    Dump dump;
    if (::posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv, envp.data()) != 0) {
        return dump;
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    dump.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(tmpl);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream s(line);
        std::string key;
        s >> key;
        if (key == "range") {
            std::string rest;
            std::getline(s, rest);
            rest = rest.substr(1);
            dump.ranges.push_back(rest);
            std::vector<std::string> parts;
            std::stringstream ps(rest);
            std::string part;
            while (std::getline(ps, part, '|')) {
                parts.push_back(part);
            }
            dump.byName.emplace(parts[0], parts);
        } else {
            long long v = 0;
            s >> v;
            dump.values[key] = v;
        }
    }
    ::unlink(tmpl);
    return dump;
}

TEST(NvtxInjectionTest, RecordsEveryKindOfRangeFromTwoModulesAndThreads) {
    Dump d = runHelper({});
    ASSERT_EQ(d.exitCode, 0);
    EXPECT_EQ(d.values["modules"], 2);  // the program and its shared library
    EXPECT_EQ(d.values["steps"], 3);
    EXPECT_EQ(d.values["dropped"], 0);
    EXPECT_EQ(d.byName.count("ProfilerStep#1"), 1u);
    EXPECT_EQ(d.byName.count("ProfilerStep#3"), 1u);
    EXPECT_EQ(d.byName.count("forward"), 3u);
    EXPECT_EQ(d.byName.count("inside-forward"), 3u);  // marks: zero-length ranges
    EXPECT_EQ(d.byName.count("lib:work"), 3u);        // from the second module
    EXPECT_EQ(d.byName.count("lib:mark"), 3u);
    EXPECT_EQ(d.byName.count("worker:batch"), 1u);
    ASSERT_EQ(d.byName.count("cross-thread"), 1u);
    ASSERT_EQ(d.byName.count("registered-name"), 1u);
    EXPECT_EQ(d.byName.find("registered-name")->second[1], "mydomain");
    EXPECT_EQ(d.byName.count("ex-range"), 1u);
    ASSERT_EQ(d.byName.count("still-open"), 1u);
    // The worker thread's range carries the worker's tid, not the main thread's.
    long long mainPid = d.values["pid"];
    EXPECT_EQ(std::stoll(d.byName.find("forward")->second[2]), mainPid);
    EXPECT_NE(std::stoll(d.byName.find("worker:batch")->second[2]), mainPid);
    // Marks have zero duration; ranges a positive one.
    EXPECT_EQ(std::stoll(d.byName.find("inside-forward")->second[3]), 0);
    EXPECT_GT(std::stoll(d.byName.find("ProfilerStep#2")->second[3]), 0);
    EXPECT_EQ(d.ranges.size(), 3u + 3 + 3 + 3 + 3 + 1 + 1 + 1 + 1 + 1);
}

TEST(NvtxInjectionTest, IdleModeRecordsNothingAndKeepsDepths) {
    Dump d = runHelper({"CHOKEPOINT_NVTX_TEST_MODE=idle"});
    ASSERT_EQ(d.exitCode, 0);  // push/pop depths still right
    EXPECT_EQ(d.values["modules"], 2);
    EXPECT_EQ(d.values["steps"], 0);
    EXPECT_TRUE(d.ranges.empty());
}

TEST(NvtxInjectionTest, FullRingDropsAndCounts) {
    Dump d = runHelper({"CHOKEPOINT_NVTX_HELPER_FLOOD=5000"});
    ASSERT_EQ(d.exitCode, 0);
    // 10,000 flood events into a 4,096-event ring with no drain: the overflow is counted.
    EXPECT_GT(d.values["dropped"], 5000);
    EXPECT_LE(d.ranges.size(), 4096u);
}

}  // namespace
