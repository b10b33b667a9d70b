#pragma once
// What the CPU op aggregations include and how they group.

namespace chokepoint::calltree {

struct CallTreeOptions {
    // Include Python stack frames (Kineto "python_function" ops). Without them, operators hang
    // under their nearest enclosing operator.
    bool includePython = true;
    // Tell calls of one op apart by their recorded input shapes ("aten::mm [[8, 1024], [1024, 4096]]").
    bool byInputShapes = false;
};

}  // namespace chokepoint::calltree
