#include "collectors/pystacks/PyStacksFile.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace chokepoint::collectors {

namespace {

using simdjson::ondemand::array;
using simdjson::ondemand::object;

bool getInt(object& o, std::string_view key, std::int64_t& out) {
    return o[key].get_int64().get(out) == simdjson::SUCCESS;
}

// {"f": [id, file, function, line]}
bool parseFrame(array a, std::vector<PyFrame>& frames, const PyStacksLimits& limits, std::string& why) {
    std::int64_t id = -1, line = 0;
    std::string_view file, function;
    std::size_t i = 0;
    for (auto element : a) {
        bool ok = i == 0   ? element.get_int64().get(id) == simdjson::SUCCESS
                  : i == 1 ? element.get_string().get(file) == simdjson::SUCCESS
                  : i == 2 ? element.get_string().get(function) == simdjson::SUCCESS
                  : i == 3 ? element.get_int64().get(line) == simdjson::SUCCESS
                           : false;
        if (!ok) {
            why = "a frame is [id, file, function, line]";
            return false;
        }
        ++i;
    }
    if (i != 4 || id != static_cast<std::int64_t>(frames.size()) || frames.size() >= limits.maxFrames) {
        why = "frame ids must count up from 0 (at most " + std::to_string(limits.maxFrames) + ")";
        return false;
    }
    frames.push_back({std::string(file), std::string(function), static_cast<std::int32_t>(line)});
    return true;
}

// {"s": [id, [frame ids, leaf first]]}
bool parseStack(array a, PyStacksProcess& p, const PyStacksLimits& limits, std::string& why) {
    std::int64_t id = -1;
    std::vector<std::uint32_t> ids;
    std::size_t i = 0;
    for (auto element : a) {
        if (i == 0) {
            if (element.get_int64().get(id) != simdjson::SUCCESS) {
                why = "a stack is [id, [frame ids]]";
                return false;
            }
        } else if (i == 1) {
            array frames;
            if (element.get_array().get(frames) != simdjson::SUCCESS) {
                why = "a stack is [id, [frame ids]]";
                return false;
            }
            for (auto f : frames) {
                std::int64_t fid = -1;
                if (f.get_int64().get(fid) != simdjson::SUCCESS || fid < 0 ||
                    fid >= static_cast<std::int64_t>(p.frames.size()) || ids.size() >= limits.maxStackDepth) {
                    why = "a stack names a frame not defined before it (or is deeper than " +
                          std::to_string(limits.maxStackDepth) + ")";
                    return false;
                }
                ids.push_back(static_cast<std::uint32_t>(fid));
            }
        }
        ++i;
    }
    if (i != 2 || id != static_cast<std::int64_t>(p.stacks.size()) || p.stacks.size() >= limits.maxStacks) {
        why = "stack ids must count up from 0 (at most " + std::to_string(limits.maxStacks) + ")";
        return false;
    }
    p.stacks.push_back(std::move(ids));
    return true;
}

}  // namespace

core::Result<PyStacksProcess> readPyStacksFile(const std::string& path, const PyStacksLimits& limits) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) {
        return core::makeError(path + ": " + ec.message());
    }
    if (size > limits.maxFileBytes) {
        return core::makeError(path + ": " + std::to_string(size) + " bytes, more than the " +
                               std::to_string(limits.maxFileBytes) + " a .pystacks file may have");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return core::makeError(path + ": cannot be opened");
    }
    PyStacksProcess p;
    p.path = path;
    simdjson::ondemand::parser parser;
    std::string line;
    std::size_t lineNumber = 0;
    auto bad = [&](const std::string& why) {
        ++p.badLines;
        if (p.firstProblem.empty()) {
            p.firstProblem = path + ": line " + std::to_string(lineNumber) + ": " + why;
        }
    };
    while (std::getline(in, line)) {
        ++lineNumber;
        if (line.empty()) {
            continue;
        }
        simdjson::padded_string padded(line);
        simdjson::ondemand::document doc;
        object o;
        if (parser.iterate(padded).get(doc) != simdjson::SUCCESS ||
            doc.get_object().get(o) != simdjson::SUCCESS) {
            if (lineNumber == 1) {
                return core::makeError(path + ": line 1: not a .pystacks header (a JSON object)");
            }
            bad("not a JSON object");
            continue;
        }
        if (lineNumber == 1) {
            std::int64_t version = 0;
            if (!getInt(o, "v", version) || version != 1 || !getInt(o, "pid", p.pid)) {
                return core::makeError(path + ": line 1: not a version-1 .pystacks header");
            }
            getInt(o, "ppid", p.ppid);
            array argv;
            if (o["argv"].get_array().get(argv) == simdjson::SUCCESS) {
                for (auto a : argv) {
                    std::string_view arg;
                    if (a.get_string().get(arg) == simdjson::SUCCESS && p.argv.size() < 64) {
                        p.argv.emplace_back(arg);
                    }
                }
            }
            continue;
        }
        std::string why;
        array a;
        std::int64_t timeNs = 0;
        if (o["t"].get_int64().get(timeNs) == simdjson::SUCCESS) {
            std::int64_t tid = 0, stack = -1;
            if (!getInt(o, "tid", tid) || !getInt(o, "s", stack) || stack < 0 ||
                stack >= static_cast<std::int64_t>(p.stacks.size())) {
                bad("a sample names a stack not defined before it");
            } else if (p.samples.size() >= limits.maxSamples) {
                bad("more than " + std::to_string(limits.maxSamples) + " samples");
            } else {
                p.samples.push_back({timeNs, tid, static_cast<std::uint32_t>(stack)});
            }
            continue;
        }
        o.reset();
        if (o["f"].get_array().get(a) == simdjson::SUCCESS) {
            if (!parseFrame(a, p.frames, limits, why)) {
                bad(why);
            }
            continue;
        }
        o.reset();
        if (o["s"].get_array().get(a) == simdjson::SUCCESS) {
            if (!parseStack(a, p, limits, why)) {
                bad(why);
            }
            continue;
        }
        o.reset();
        if (o["thread"].get_array().get(a) == simdjson::SUCCESS) {
            std::int64_t tid = 0;
            std::string_view name;
            std::size_t i = 0;
            bool ok = true;
            for (auto element : a) {
                if (i == 0) {
                    ok = ok && element.get_int64().get(tid) == simdjson::SUCCESS;
                } else if (i == 1) {
                    ok = ok && element.get_string().get(name) == simdjson::SUCCESS;
                }
                ++i;
            }
            if (ok && i == 2 && p.threadNames.size() < 4096) {
                p.threadNames.emplace_back(tid, std::string(name.substr(0, 128)));
            } else {
                bad("a thread is [tid, name]");
            }
            continue;
        }
        o.reset();
        bool end = false;
        if (o["end"].get_bool().get(end) == simdjson::SUCCESS && end) {
            p.ended = true;
            std::int64_t dropped = 0;
            o.reset();
            if (getInt(o, "dropped", dropped) && dropped > 0) {
                p.droppedBySampler = static_cast<std::uint64_t>(dropped);
            }
            continue;
        }
        bad("neither a frame, a stack, a sample nor the end");
    }
    return p;
}

std::vector<PyStacksProcess> readPyStacksFolder(const std::string& folder, std::vector<std::string>* problems,
                                                const PyStacksLimits& limits) {
    std::vector<PyStacksProcess> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        if (entry.path().extension() != ".pystacks" || !entry.is_regular_file(ec)) {
            continue;
        }
        auto file = readPyStacksFile(entry.path().string(), limits);
        if (file.ok()) {
            out.push_back(std::move(file.value()));
        } else if (problems != nullptr) {
            problems->push_back(file.error().message);
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
    return out;
}

std::vector<const PyStacksProcess*> processTree(const std::vector<PyStacksProcess>& all,
                                                std::int64_t rootPid) {
    std::set<std::int64_t> members{rootPid};
    bool grew = true;
    while (grew) {  // a few levels at most (DataLoader workers, their children)
        grew = false;
        for (const auto& p : all) {
            if (members.count(p.ppid) != 0 && members.insert(p.pid).second) {
                grew = true;
            }
        }
    }
    std::vector<const PyStacksProcess*> out;
    for (const auto& p : all) {
        if (members.count(p.pid) != 0) {
            out.push_back(&p);
        }
    }
    return out;
}

}  // namespace chokepoint::collectors
