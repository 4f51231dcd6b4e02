#pragma once

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>

#include <memory>

namespace bdt
{

/// A `btCollisionDispatcher` that generates the contacts of pairs with a deformable body on several threads
/// before Bullet's own (serial) pass over the pairs, which then only writes the manifolds.
///
///     bdt::CollisionConfiguration configuration;
///     bdt::ParallelDispatcher dispatcher(&configuration, 2);
///
/// Per discrete dispatch, on the calling thread: every overlapping pair that Bullet's near callback would
/// process, with a `DeformableShape` on one side and a deformable or an analytic primitive (sphere, box,
/// capsule, static plane) on the other, gets its algorithm (as Bullet's callback would make it), its contact
/// breaking threshold and search distance (calls into Bullet, so serial; each body's motion and threshold
/// are made once per dispatch and shared by its pairs). Then the threads descend the
/// pairs' trees, group the contacts into regions and choose and predict each region's points
/// (`DeformableCollisionAlgorithm::GeneratePrepared`, this plugin's code only: no Bullet call runs
/// concurrently, as Debian's Bullet is not thread-safe), taking pairs in turn; the bodies' sphere caches are
/// shared (`TreeState::ConcurrentScope`). Then Bullet's pass runs as usual and each such pair writes its
/// planned points into its manifolds. The results are bit-identical to `btCollisionDispatcher`'s, whatever
/// the thread count and timing: a pair's points depend only on its bodies and its own manifolds, and the
/// manifolds are written in Bullet's order. Pairs with any other shape (GJK and Bullet's triangle traversals
/// keep global counters), closest-point queries, continuous dispatch and a custom near callback run
/// serially, as in the base class.
///
/// With 1 thread it is `btCollisionDispatcher`. A step with fewer than two such pairs runs serially. Each
/// parallel dispatch starts its helper threads and joins them (tens of microseconds); an exception thrown by
/// a pair's contact generation is rethrown on the calling thread after the join. The pairs' plans and each
/// thread's contact buffer keep their capacity between steps.
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

    /// Pairs whose contacts the last dispatch generated ahead of Bullet's pass (for stats and tests).
    std::size_t PreparedPairs() const { return mLastPrepared; }

    void dispatchAllCollisionPairs(btOverlappingPairCache* inPairCache, const btDispatcherInfo& inInfo,
                                   btDispatcher* inDispatcher) override;

private:
    struct Batch;

    unsigned mThreads = 1;
    std::size_t mLastPrepared = 0;
    std::unique_ptr<Batch> mBatch; ///< The pairs of a dispatch and their contact buffers, reused.
};

} // namespace bdt
