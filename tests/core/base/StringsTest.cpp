// core/base/Strings.h: the one lower-case helper.

#include <gtest/gtest.h>

#include "core/base/Strings.h"

using chokepoint::core::toLower;

TEST(Strings, LowersAsciiLettersOnly) {
    EXPECT_EQ(toLower("ProfilerStep#12 ABC_xyz-09"), "profilerstep#12 abc_xyz-09");
    EXPECT_EQ(toLower(""), "");
    // UTF-8 sequences stay as they are.
    EXPECT_EQ(toLower("\xC3\x84rger \xE2\x86\x92 GPU"), "\xC3\x84rger \xE2\x86\x92 gpu");
    static_assert(toLower('Q') == 'q' && toLower('q') == 'q' && toLower('@') == '@' && toLower('[') == '[');
}
