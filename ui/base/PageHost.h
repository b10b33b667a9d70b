#pragma once
// PageHost: what the window hosting the pages (MainWindow) offers them: its menus, a place among
// File's opening actions, and switching to a page. A page adds its actions in
// Page::installActions(PageHost&), which the host calls once when it takes the page, so no page
// knows the window's class.

class QAction;
class QMenu;
class QString;

namespace chokepoint::ui {

class PageHost {
public:
    // Menus pages may add actions to (the review and export actions, for example).
    enum class MenuId { File, Export, View, Go, Review, Help };

    virtual QMenu* menu(MenuId id) const = 0;
    // Adds a page's "open another file" action to File, with the other opening actions (above
    // Export, Close and Quit).
    virtual void addFileOpenAction(QAction* action) = 0;
    // Switches to the page's tab (leaving the welcome page); false for an unknown id.
    virtual bool showPage(const QString& pageId) = 0;

protected:
    ~PageHost() = default;
};

}  // namespace chokepoint::ui
