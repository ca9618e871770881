#include "graph/utf8.hpp"

#include <gtest/gtest.h>

namespace dag {
namespace {

TEST(Utf8, AcceptsWellFormedText) {
    EXPECT_TRUE(is_valid_utf8(""));
    EXPECT_TRUE(is_valid_utf8("aws_instance.web"));
    EXPECT_TRUE(is_valid_utf8("\xd0\x9f\xd0\xa0\xd0\x95\xd0\x97"));  // Cyrillic
    EXPECT_TRUE(is_valid_utf8("\xe2\x82\xac"));                      // U+20AC
    EXPECT_TRUE(is_valid_utf8("\xf0\x9f\x98\x80"));                  // U+1F600
    EXPECT_TRUE(is_valid_utf8("\xf4\x8f\xbf\xbf"));                  // U+10FFFF
}

TEST(Utf8, RejectsMalformedText) {
    EXPECT_FALSE(is_valid_utf8("\xff"));
    EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong '/'
    EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));      // overlong
    EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // surrogate U+D800
    EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
    EXPECT_FALSE(is_valid_utf8("\xe2\x82"));          // truncated
    EXPECT_FALSE(is_valid_utf8("a\x80"));             // stray continuation
    EXPECT_FALSE(is_valid_utf8("\xe9t\xe9"));         // Latin-1
}

}  // namespace
}  // namespace dag
