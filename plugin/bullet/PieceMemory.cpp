#include "PieceMemory.h"

namespace bdt
{

PieceMemory::PieceMemory(std::uint32_t inNodeCount)
    : mNodeCount(inNodeCount), mLast((inNodeCount + 31) / 32, 0u),
      mThis(std::make_unique<std::atomic<std::uint32_t>[]>(mLast.size()))
{
    Clear();
}

void PieceMemory::NextStep()
{
    const bool marked = mMarked.load(std::memory_order_relaxed);
    if (!marked && !mLastMarked)
        return; // both steps' bits are all clear already
    // Alone here: plain loads and stores, not a locked exchange per word.
    for (std::size_t i = 0; i < mLast.size(); ++i)
    {
        mLast[i] = mThis[i].load(std::memory_order_relaxed);
        mThis[i].store(0u, std::memory_order_relaxed);
    }
    mLastMarked = marked;
    mMarked.store(false, std::memory_order_relaxed);
}

void PieceMemory::Clear()
{
    for (std::size_t i = 0; i < mLast.size(); ++i)
    {
        mLast[i] = 0u;
        mThis[i].store(0u, std::memory_order_relaxed);
    }
    mMarked.store(false, std::memory_order_relaxed);
    mLastMarked = false;
}

} // namespace bdt
