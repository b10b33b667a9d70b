#include "ui/StandardPages.h"

#include "ui/pages/ComparePage.h"
#include "ui/pages/DiagnosisPage.h"
#include "ui/pages/FixesPage.h"
#include "ui/pages/OpsPage.h"
#include "ui/pages/ReviewPage.h"
#include "ui/pages/RooflinePage.h"
#include "ui/timeline/TimelinePage.h"

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
