#pragma once

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>

#include <memory>

namespace bdt
{

/// A `btCollisionDispatcher` that generates the contacts of pairs with a deformable body on several threads
/// while Bullet's own (serial) pass over the pairs writes the manifolds of those already made.
///
///     bdt::CollisionConfiguration configuration;
///     bdt::ParallelDispatcher dispatcher(&configuration, 2);
///
/// Per discrete dispatch, on the calling thread: every overlapping pair that Bullet's near callback would
/// process, with a `DeformableShape` on one side and a deformable or an analytic primitive (sphere, box,
/// capsule, static plane) on the other, gets its algorithm (as Bullet's callback would make it), its contact
/// breaking threshold and search distance (calls into Bullet, so serial; each body's motion and threshold
/// are made once per dispatch and shared by its pairs). Each such pair is handed to the helper threads as
/// soon as it is prepared: they descend its trees, group the contacts into regions and choose and predict
/// each region's points (`DeformableCollisionAlgorithm::GeneratePrepared`: this plugin's code, which only
/// reads Bullet's objects), taking pairs in the pass's order, a few at a time; the bodies' sphere caches are
/// shared (`TreeState::ConcurrentScope`). Once every pair is prepared, Bullet's pass runs on the calling thread
/// while the helpers go on: each prepared pair's algorithm waits for its plan, planning pairs no thread has
/// taken yet meanwhile, and writes it into its manifolds. Bullet's code (the pass, other pairs' algorithms,
/// the manifold pool, callbacks) thus runs on the calling thread only; the helpers read the bodies, shapes
/// and their own pairs' manifolds, which the pass leaves alone until their plans are made (Debian's Bullet is
/// not thread-safe). The results are bit-identical to `btCollisionDispatcher`'s, whatever the thread count
/// and timing: a pair's points depend only on its bodies and its own manifolds, and the manifolds are written
/// in Bullet's order. Pairs with any other shape (GJK and Bullet's triangle traversals keep global counters),
/// closest-point queries, continuous dispatch and a custom near callback run serially in the pass, as in the
/// base class.
///
/// With 1 thread it is `btCollisionDispatcher`; so is a dispatch of fewer than two overlapping pairs. Each
/// parallel dispatch starts its helper threads and joins them (tens of microseconds); waits yield the
/// processor. An exception thrown by a pair's contact generation is rethrown on the calling thread: from
/// the pass when it waits for that pair's plan, else after the join. The pairs' plans and each thread's
/// contact buffer keep their capacity between steps.
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
    /// Of those, the pairs whose bodies' root spheres were apart by more than the pair searched: their plans
    /// were empty without a descent.
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
