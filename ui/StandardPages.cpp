#include "ui/StandardPages.h"

#include "ui/timeline/TimelinePage.h"

namespace chokepoint::ui {

std::vector<Page*> createStandardPages() {
    std::vector<Page*> pages;
    // One line per page, in tab order: diagnosis, timeline, roofline, fixes, review, compare.
    pages.push_back(new TimelinePage);
    return pages;
}

}  // namespace chokepoint::ui
