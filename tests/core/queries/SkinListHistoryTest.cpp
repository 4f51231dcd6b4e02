// How a pair's skin lists have fared (`SkinListHistory`): lists that answer fewer queries than their owner
// says pay for the widened descent make the pair descend without a list for 1, 2, 4, 8 and then 16 queries in
// a row; a list that pays starts the count again.
#include "core/queries/SkinListHistory.h"
#include <cstdint>
#include <gtest/gtest.h>

namespace bdt
{
namespace
{

// The list made by the last descent answers `inReuses` queries and is dropped; returns the descents then held
// off (made without a list) before the next descent that makes one (the last call's).
std::uint32_t UseAndDrop(SkinListHistory& ioHistory, std::uint32_t inReuses)
{
    ioHistory.ListMade();
    for (std::uint32_t i = 0; i < inReuses; ++i)
        ioHistory.Reused();
    ioHistory.ListDropped();
    std::uint32_t held = 0;
    while (ioHistory.DescendHoldingOff())
        ++held;
    return held;
}

TEST(SkinListHistory, ListsThatDoNotPayHoldOffDoublingUpTo16)
{
    for (std::uint32_t pay = 1; pay <= 3; ++pay)
        for (std::uint32_t reuses = 0; reuses < pay; ++reuses)
        {
            SkinListHistory history(pay);
            ASSERT_FALSE(history.DescendHoldingOff()) << "the first descent makes a list";
            for (const std::uint32_t held : {1u, 2u, 4u, 8u, 16u, 16u, 16u})
                EXPECT_EQ(UseAndDrop(history, reuses), held)
                    << "lists answering " << reuses << " queries where " << pay << " pay";
        }
}

TEST(SkinListHistory, AListPaysWithTheQueriesItsOwnerAsks)
{
    SkinListHistory once(1), twice(2);
    ASSERT_FALSE(once.DescendHoldingOff());
    ASSERT_FALSE(twice.DescendHoldingOff());
    EXPECT_EQ(UseAndDrop(once, 1), 0u);
    EXPECT_EQ(UseAndDrop(twice, 1), 1u);
    EXPECT_EQ(UseAndDrop(twice, 2), 0u);
    SkinListHistory none(0); // taken as 1: a list never reused does not pay, one reused once does
    ASSERT_FALSE(none.DescendHoldingOff());
    EXPECT_EQ(UseAndDrop(none, 0), 1u);
    EXPECT_EQ(UseAndDrop(none, 1), 0u);
}

TEST(SkinListHistory, AListThatPaysStartsTheCountAgain)
{
    SkinListHistory history(2);
    ASSERT_FALSE(history.DescendHoldingOff());
    EXPECT_EQ(UseAndDrop(history, 0), 1u);
    EXPECT_EQ(UseAndDrop(history, 1), 2u);
    EXPECT_EQ(UseAndDrop(history, 0), 4u);
    EXPECT_EQ(UseAndDrop(history, 2), 0u) << "a list that paid";
    EXPECT_EQ(UseAndDrop(history, 1), 1u) << "the count starts again";
    EXPECT_EQ(UseAndDrop(history, 5), 0u);
}

TEST(SkinListHistory, CountsReusesAndDescents)
{
    SkinListHistory history;
    history.DescendedWithoutList();
    ASSERT_FALSE(history.DescendHoldingOff());
    EXPECT_EQ(UseAndDrop(history, 3), 0u); // one more descent: the one that makes the next list
    EXPECT_EQ(UseAndDrop(history, 0), 1u); // two more: one held off, one making a list
    EXPECT_EQ(history.Reuses(), 3u);
    EXPECT_EQ(history.Descents(), 5u);
}

} // namespace
} // namespace bdt
