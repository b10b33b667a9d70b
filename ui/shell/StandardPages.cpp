#include "ui/shell/StandardPages.h"

#include "ui/views/pages/ComparePage.h"
#include "ui/views/pages/DiagnosisPage.h"
#include "ui/views/pages/FixesPage.h"
#include "ui/views/pages/OpsPage.h"
#include "ui/views/pages/ReviewPage.h"
#include "ui/views/pages/RooflinePage.h"
#include "ui/views/timeline/TimelinePage.h"

namespace chokepoint::ui {

std::vector<Page*> createStandardPages() {
    std::vector<Page*> pages;
    // One line per page, in tab order: diagnosis, timeline, roofline, ops, fixes, review, compare.
    pages.push_back(new DiagnosisPage);
    pages.push_back(new TimelinePage);
    pages.push_back(new RooflinePage);
    pages.push_back(new OpsPage);
    pages.push_back(new FixesPage);
    pages.push_back(new ReviewPage);
    pages.push_back(new ComparePage);
    return pages;
}

}  // namespace chokepoint::ui
