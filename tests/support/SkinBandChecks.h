#pragma once

// The shared check of a skin list's bands (`SkinBands.h`), for the pair caches' tests.

#include <bdt/core/queries/TreeQueries.h>
#include <cstddef>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <vector>

namespace bdt::test
{

/// What a query answered from a list did.
struct ListQueryWork
{
    std::uint64_t tests = 0;   ///< Sphere tests.
    std::uint64_t updates = 0; ///< Sphere updates.
};

/// How many proxy contacts the descent from the roots finds with A's reach widened by `inWidening` (world
/// units) against `inOther` (a body or a primitive): what is within reach + widening.
template <class Other>
std::size_t FoundWithin(DeformedBody inA, const Other& inOther, double inWidening)
{
    inA.inflate += inWidening;
    std::vector<ProxyContact> found;
    QueryStats stats;
    CollideProxies(inA, inOther, found, stats);
    return found.size();
}

/// Checks that a list's bands limit its queries. `inQuery(what)` runs a query through `ioCache` (checking its
/// contacts against the descent's) and returns its work; `inWithin(w)` counts what the descent with the reach
/// widened by w finds (the oracle); `inMoveCloser()` brings the bodies 0.6 skin closer. The first query makes
/// the list of what is within reach + skin; unmoved, the next tests at least what is within reach + s/4 and
/// less than what is within reach + s/2, updating fewer proxies than the list keeps; moved 0.6 s closer, the
/// next tests at least what was within reach + 3s/4 and less than the list keeps. Returns the unmoved query's
/// work.
template <class Cache, class Query, class Within, class MoveCloser>
ListQueryWork ExpectBandsLimitTheQueries(const Cache& inCache, double inSkin, Query&& inQuery, Within&& inWithin,
                                         MoveCloser&& inMoveCloser)
{
    inQuery("the descent that makes the list");
    EXPECT_EQ(inCache.Descents(), 1u);
    EXPECT_EQ(inCache.Size(), inWithin(inSkin));

    const ListQueryWork unmoved = inQuery("unmoved");
    EXPECT_EQ(inCache.Reuses(), 1u);
    const std::size_t quarter = inWithin(0.25 * inSkin);
    EXPECT_GE(unmoved.tests, quarter);
    EXPECT_LT(unmoved.tests, inWithin(0.5 * inSkin)) << "only the first band";
    EXPECT_LT(unmoved.updates, inCache.Size()) << "only the first band's proxies";

    const std::size_t threeQuarters = inWithin(0.75 * inSkin);
    inMoveCloser();
    const ListQueryWork moved = inQuery("0.6 skin closer");
    EXPECT_EQ(inCache.Reuses(), 2u);
    EXPECT_GE(moved.tests, threeQuarters);
    EXPECT_GT(moved.tests, unmoved.tests);
    EXPECT_LT(moved.tests, inCache.Size());
    std::cout << "[ info ] kept " << inCache.Size() << "; unmoved: " << unmoved.tests << " tested (" << quarter
              << " within s/4); 0.6 s closer: " << moved.tests << " tested (" << threeQuarters << " within 3s/4)\n";
    return unmoved;
}

} // namespace bdt::test
