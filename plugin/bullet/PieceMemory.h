#pragma once

// Which of a body's contact pieces its contacts used last step, for the hysteresis of `PieceSide::Usable`.
// Private to plugin/bullet.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace bdt
{

/// One bit a node of a body's contact pieces (`ContactPieces`) for the step before and one for this step.
/// The narrowphase reads last step's bits and sets this step's, from any number of threads at once (an atomic
/// or, so the bits set do not depend on the pairs' order); `DeformableShape::BeginStep` makes this step's
/// bits last step's, alone. 2 bits a node.
class PieceMemory
{
public:
    explicit PieceMemory(std::uint32_t inNodeCount);

    std::uint32_t NodeCount() const { return mNodeCount; }
    /// Whether node `inNode` made a contact last step. Thread-safe with `MarkUsed`.
    bool WasUsed(std::uint32_t inNode) const { return ((mLast[inNode >> 5] >> (inNode & 31)) & 1u) != 0; }
    /// Notes that node `inNode` made a contact this step. Thread-safe.
    void MarkUsed(std::uint32_t inNode)
    {
        mThis[inNode >> 5].fetch_or(std::uint32_t(1) << (inNode & 31), std::memory_order_relaxed);
        if (!mMarked.load(std::memory_order_relaxed))
            mMarked.store(true, std::memory_order_relaxed);
    }
    /// This step's bits become last step's, and this step's are cleared. Not thread-safe. O(nodes / 32) where a
    /// node was marked this step or last; O(1) otherwise (a body without piece contacts, as in the proxies model).
    void NextStep();
    /// Forgets both steps' bits: the next step starts as a new body's. Not thread-safe.
    void Clear();

private:
    std::uint32_t mNodeCount = 0;
    std::vector<std::uint32_t> mLast;
    std::unique_ptr<std::atomic<std::uint32_t>[]> mThis;
    std::atomic<bool> mMarked{false}; // a node was marked this step
    bool mLastMarked = false;          // a node was marked last step
};

} // namespace bdt
