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
    for (std::size_t i = 0; i < mLast.size(); ++i)
        mLast[i] = mThis[i].exchange(0u, std::memory_order_relaxed);
}

void PieceMemory::Clear()
{
    for (std::size_t i = 0; i < mLast.size(); ++i)
    {
        mLast[i] = 0u;
        mThis[i].store(0u, std::memory_order_relaxed);
    }
}

} // namespace bdt
