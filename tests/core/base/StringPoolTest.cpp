#include "core/base/StringPool.h"

#include <gtest/gtest.h>

#include <string>

using chokepoint::core::StringId;
using chokepoint::core::StringPool;

TEST(StringPool, InternsEachTextOnce) {
    StringPool pool;
    StringId a = pool.intern("ampere_sgemm");
    StringId b = pool.intern("aten::mm");
    EXPECT_NE(a, b);
    EXPECT_EQ(a, pool.intern(std::string("ampere_") + "sgemm"));
    EXPECT_EQ(pool.view(a), "ampere_sgemm");
    EXPECT_EQ(pool.view(b), "aten::mm");
    EXPECT_EQ(pool.size(), 3u);  // with the empty string
}

TEST(StringPool, EmptyStringIsIdZero) {
    StringPool pool;
    EXPECT_EQ(pool.intern(""), StringPool::emptyId());
    EXPECT_EQ(pool.view(StringPool::emptyId()), "");
}

TEST(StringPool, InvalidIdViewsAsEmpty) {
    StringPool pool;
    EXPECT_EQ(pool.view(StringId{}), "");
    EXPECT_EQ(pool.view(StringId{12345}), "");
    EXPECT_FALSE(pool.find("missing").valid());
}

TEST(StringPool, ViewsStayValidAcrossManyBlocksAndLongStrings) {
    StringPool pool;
    std::string longText(600'000, 'x');
    StringId first = pool.intern("first");
    StringId big = pool.intern(longText);
    for (int i = 0; i < 200'000; ++i) {
        pool.intern("kernel_" + std::to_string(i));
    }
    EXPECT_EQ(pool.view(first), "first");
    EXPECT_EQ(pool.view(big), longText);
    EXPECT_EQ(pool.view(pool.find("kernel_199999")), "kernel_199999");
}
