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

/// What the two skin caches (`ProxyPairCache`, `PrimitivePairCache`) share: the skin, whether a list is kept,
/// and how the lists have fared. `Derived` provides `Clear()`, which forgets its list (and sets `mValid` false).
template <class Derived>
class SkinListCache
{
public:
    /// The skin s, world units.
    double Skin() const { return mSkin; }
    /// Sets the skin (world units, ≥ 0); forgets the list if it changes.
    void SetSkin(double inSkin)
    {
        if (inSkin != mSkin)
            static_cast<Derived&>(*this).Clear();
        mSkin = inSkin;
    }
    /// Whether a list is kept.
    bool Valid() const { return mValid; }
    /// Queries answered from the list, and descents made, since construction.
    std::uint64_t Reuses() const { return mHistory.Reuses(); }
    std::uint64_t Descents() const { return mHistory.Descents(); }

    /// The course of every query through a skin list, the same for both caches (the steps are the caller's):
    /// without a usable skin (`inUsable` false: no skin, or §3.5 coherence) the list is forgotten and
    /// `inDescend()` answers; a list made for another key is forgotten; a kept list answers through
    /// `inAnswer(band)` when `inBand()` (the skin band the motion since allows, `SkinBandForBound`) is not 0,
    /// and is dropped otherwise; while lists that did not pay hold the skin off, `inDescend()` answers;
    /// else `inMakeList()` descends with the skin and keeps a new list.
    template <class OnBand, class OnAnswer, class OnDescend, class OnMakeList>
    void Answer(bool inUsable, bool inSameKey, const OnBand& inBand, const OnAnswer& inAnswer,
                const OnDescend& inDescend, const OnMakeList& inMakeList)
    {
        Derived& self = static_cast<Derived&>(*this);
        if (!inUsable)
        {
            self.Clear();
            mHistory.DescendedWithoutList();
            inDescend();
            return;
        }
        if (mValid && !inSameKey)
            self.Clear();
        if (mValid)
        {
            const std::uint32_t band = inBand();
            if (band != 0)
            {
                inAnswer(band);
                mHistory.Reused();
                return;
            }
            // The list no longer answers; if it never did, the bodies move too fast for the skin: descend
            // without it for a while (`SkinListHistory`).
            mHistory.ListDropped();
            self.Clear();
        }
        if (mHistory.DescendHoldingOff())
        {
            inDescend();
            return;
        }
        inMakeList();
        mValid = true;
        mHistory.ListMade();
    }

protected:
    /// `inSkin`: the skin s, world units (≥ 0; 0 keeps no list); `inReusesThatPay` as `SkinListHistory`.
    SkinListCache(double inSkin, std::uint32_t inReusesThatPay) : mSkin(inSkin), mHistory(inReusesThatPay) {}

    double mSkin = 0.0;
    bool mValid = false;
    SkinListHistory mHistory; ///< Reuses, descents and the hold-off after lists that did not pay.
};

} // namespace bdt
