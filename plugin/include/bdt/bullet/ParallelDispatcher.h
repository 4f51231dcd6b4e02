#pragma once

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>

#include <memory>

namespace bdt
{

/// A `btCollisionDispatcher` that generates the contacts of a deformable body's pairs with deformables and
/// primitives (sphere, box, capsule, static plane) on helper threads, while Bullet's code runs on the calling
/// thread only; the results are bit-identical to `btCollisionDispatcher`'s for any thread count. Other pairs
/// run serially; a parallel dispatch costs tens of µs to start and join its threads; exceptions are rethrown on
/// the calling thread. How it works: docs/TUNING.md#paralleldispatcher.
class ParallelDispatcher : public btCollisionDispatcher
{
public:
    /// `inThreads` ≥ 1 threads in all, the calling one included; 0 picks the machine's hardware threads.
    explicit ParallelDispatcher(btCollisionConfiguration* inConfiguration, unsigned inThreads = 0);
    ~ParallelDispatcher() override;

    ParallelDispatcher(const ParallelDispatcher&) = delete;
    ParallelDispatcher& operator=(const ParallelDispatcher&) = delete;

    /// Threads used per dispatch (≥ 1); 0 picks the machine's hardware threads. Not during a dispatch.
    void SetThreads(unsigned inThreads);
    unsigned Threads() const { return mThreads; }

    /// Pairs whose contacts the last dispatch prepared for the threads (for stats and tests).
    std::size_t PreparedPairs() const { return mLastPrepared; }
    /// Of those, the pairs whose root spheres were too far apart to descend.
    std::size_t ApartPairs() const { return mLastApart; }

    void dispatchAllCollisionPairs(btOverlappingPairCache* inPairCache, const btDispatcherInfo& inInfo,
                                   btDispatcher* inDispatcher) override;

private:
    struct Batch;

    unsigned mThreads = 1;
    std::size_t mLastPrepared = 0;
    std::size_t mLastApart = 0;
    std::unique_ptr<Batch> mBatch; ///< The pairs of a dispatch and their contact buffers, reused.
};

} // namespace bdt
