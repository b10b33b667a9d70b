#include "ui/base/document/TracePrefetch.h"

#include <map>
#include <mutex>

#include "core/import/TraceLoader.h"
#include "ui/base/document/StartupTiming.h"

namespace chokepoint::ui {

namespace {

struct Prefetches {
    std::mutex mutex;
    std::map<QString, std::future<core::Result<core::TraceModel>>> byPath;
};

Prefetches& prefetches() {
    static Prefetches instance;
    return instance;
}

}  // namespace

void prefetchTrace(const QString& absolutePath) {
    Prefetches& p = prefetches();
    std::lock_guard lock(p.mutex);
    if (p.byPath.count(absolutePath) == 0) {
        p.byPath.emplace(absolutePath, std::async(std::launch::async, [path = absolutePath.toStdString()] {
                             auto r = core::loadTrace(path);
                             noteStartupMilestone("trace read ahead");
                             return r;
                         }));
    }
}

std::optional<std::future<core::Result<core::TraceModel>>> takePrefetchedTrace(const QString& absolutePath) {
    Prefetches& p = prefetches();
    std::lock_guard lock(p.mutex);
    auto it = p.byPath.find(absolutePath);
    if (it == p.byPath.end()) {
        return std::nullopt;
    }
    std::future<core::Result<core::TraceModel>> future = std::move(it->second);
    p.byPath.erase(it);
    return future;
}

}  // namespace chokepoint::ui
