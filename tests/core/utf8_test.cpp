#include "graph/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

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

// Long ASCII runs are checked eight bytes at a time: a bad byte or a
// sequence is found wherever it falls against those words.
TEST(Utf8, FindsEveryBadByteInLongAsciiText) {
    const std::string ascii(40, 'a');
    for (std::size_t at = 0; at <= ascii.size(); ++at) {
        std::string text = ascii;
        text.insert(at, "\xe2\x82\xac");
        EXPECT_TRUE(is_valid_utf8(text)) << at;
        text = ascii;
        text.insert(at, "\x80");
        EXPECT_FALSE(is_valid_utf8(text)) << at;
        text = ascii;
        text.insert(at, "\xe2\x82");
        EXPECT_FALSE(is_valid_utf8(text)) << at;
    }
}

}  // namespace
}  // namespace dag
