#pragma once

#include <algorithm>
#include <cstdint>

namespace bdt
{

/// How a pair's skin lists have fared (`ProxyPairCache`, `PrimitivePairCache`): the queries answered from a
/// list, the descents made, and when to stop making lists. A list costs a descent widened by the skin, which
/// the queries it answers must pay for: bodies that move faster than the skin allows never reuse one, and
/// those that use up the skin in two steps reuse each once only, which pays for some pairs and not for others
/// (the owner says how many queries pay). So after a list that answered fewer queries than that, the pair
/// descends without the skin (keeping no list) for 1, 2, 4, 8 and then 16 queries as such lists follow in a
/// row; a list that paid starts the count again. 32 bytes, O(1) per call.
class SkinListHistory
{
public:
    /// `inReusesThatPay`: the queries a list must answer to pay for the descent that made it (≥ 1).
    explicit SkinListHistory(std::uint32_t inReusesThatPay = 1)
        : mReusesThatPay(std::max(1u, inReusesThatPay))
    {
    }

    /// The current list answered a query.
    void Reused()
    {
        ++mListReuses;
        ++mReuses;
    }
    /// The current list no longer answers: it is dropped, and if it answered fewer queries than pay for it,
    /// the next descents hold off making another.
    void ListDropped()
    {
        if (mListReuses < mReusesThatPay)
        {
            ++mFailures;
            mHoldOff = std::min(1u << std::min(mFailures - 1, 4u), 16u);
        }
        else
            mFailures = 0;
    }
    /// A descent is made; true when it is to be made without the skin (no list), counting the hold-off down.
    bool DescendHoldingOff()
    {
        ++mDescents;
        if (mHoldOff == 0)
            return false;
        --mHoldOff;
        return true;
    }
    /// A descent was made without any list kept (no skin, or no coherence possible).
    void DescendedWithoutList() { ++mDescents; }
    /// A new list was made by the descent.
    void ListMade() { mListReuses = 0; }

    /// Queries answered from a list, and descents made, since construction.
    std::uint64_t Reuses() const { return mReuses; }
    std::uint64_t Descents() const { return mDescents; }

private:
    std::uint32_t mReusesThatPay;  ///< Queries a list must answer to pay for its descent.
    std::uint32_t mFailures = 0;   ///< Lists in a row that answered fewer queries than that.
    std::uint32_t mHoldOff = 0;    ///< Queries left to descend without the skin.
    std::uint32_t mListReuses = 0; ///< Queries the current list has answered.
    std::uint64_t mReuses = 0;
    std::uint64_t mDescents = 0;
};

} // namespace bdt
