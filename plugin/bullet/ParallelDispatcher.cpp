#include "bullet/narrowphase/DeformableCollisionAlgorithm.h"
#include "bullet/narrowphase/SearchDistance.h"

#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>
#include <algorithm>
#include <atomic>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/bullet/ParallelDispatcher.h>
#include <bdt/core/base/Prefetch.h>
#include <bdt/core/bounds/TreeState.h>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bdt
{

/// The pairs prepared in a dispatch (`count` of the slots, reused across dispatches with their plans'
/// storage), each thread's scratch buffer for a pair's contacts (which keeps its capacity), and the schedule
/// of the dispatch in flight: which slots are prepared, taken and planned.
struct ParallelDispatcher::Batch final : PreparedPairSchedule
{
    std::vector<PreparedPair> pairs;
    std::size_t count = 0;
    std::vector<std::vector<PairContact>> scratch; ///< One per thread; the dispatching thread's is 0.
    StepMotionCache motions; ///< Each body's motion and threshold, once a dispatch.

    /// Slot k's plan is made once planned[k] is 1 (release: the plan is complete when it is seen).
    std::unique_ptr<std::atomic<std::uint8_t>[]> planned;
    std::size_t plannedCapacity = 0;
    std::atomic<std::size_t> published{0}; ///< Slots [0, published) are prepared.
    std::atomic<std::size_t> taken{0};     ///< Slots [0, taken) are taken by a thread.
    std::atomic<bool> closed{false};       ///< No slot will be published any more.
    std::atomic<bool> failed{false};       ///< A plan threw; `failure` holds it.
    std::exception_ptr failure;
    std::mutex failureMutex;

    PreparedPair& Next()
    {
        if (count == pairs.size())
            pairs.emplace_back();
        return pairs[count++];
    }

    /// Readies the schedule for a dispatch of at most `inPairs` prepared pairs: no slot published or taken.
    /// The pairs' storage is reserved, so that preparing more never moves a pair a thread is planning. It
    /// grows geometrically: reserved exactly, a pile whose pair count creeps up step after step would move every
    /// prepared pair (and its plan's buffers) on most steps.
    void Begin(std::size_t inPairs)
    {
        count = 0;
        if (pairs.capacity() < inPairs)
            pairs.reserve(std::max(inPairs, pairs.capacity() + pairs.capacity() / 2));
        if (plannedCapacity < inPairs)
        {
            const std::size_t capacity = std::max(inPairs, plannedCapacity + plannedCapacity / 2);
            planned = std::make_unique<std::atomic<std::uint8_t>[]>(capacity);
            plannedCapacity = capacity;
        }
        published.store(0, std::memory_order_relaxed);
        taken.store(0, std::memory_order_relaxed);
        closed.store(false, std::memory_order_relaxed);
        failed.store(false, std::memory_order_relaxed);
        failure = nullptr;
    }

    /// Makes slot `count − 1` (just prepared) available to the threads.
    void Publish()
    {
        planned[count - 1].store(0, std::memory_order_relaxed);
        published.store(count, std::memory_order_release);
    }

    /// Takes the next few published slots, if any, and plans them on thread `inThread`. False when none
    /// was free.
    bool PlanSome(std::uint32_t inThread)
    {
        // A few pairs at a time: fewer contended counter updates, and the pairs fetched ahead (below) are
        // this thread's own, which no other thread writes meanwhile (Bullet's pass commits only planned ones).
        constexpr std::size_t cChunk = 4;
        std::size_t first = taken.load(std::memory_order_relaxed);
        const std::size_t limit = published.load(std::memory_order_acquire);
        if (first >= limit)
            return false;
        const std::size_t last = std::min(first + cChunk, limit);
        if (!taken.compare_exchange_weak(first, last, std::memory_order_relaxed))
            return true; // another thread took them: look again
        std::vector<PairContact>& buffer = scratch[inThread];
        for (std::size_t k = first; k < last; ++k)
        {
            // The data of the pairs to come, while this one is worked on: two stages.
            if (k + 2 < last)
                DeformableCollisionAlgorithm::PrefetchObjects(pairs[k + 2]);
            if (k + 1 < last)
                pairs[k + 1].algorithm->PrefetchState(pairs[k + 1]);
            pairs[k].algorithm->GeneratePrepared(pairs[k], buffer);
            planned[k].store(1, std::memory_order_release);
        }
        return true;
    }

    /// A helper thread: plans pairs until every slot is taken and no more will come, or a plan failed.
    void Help(std::uint32_t inThread)
    {
        TreeState::ConcurrentScope scope;
        try
        {
            while (!failed.load(std::memory_order_relaxed))
            {
                if (PlanSome(inThread))
                    continue;
                if (closed.load(std::memory_order_acquire) &&
                    taken.load(std::memory_order_relaxed) >= published.load(std::memory_order_relaxed))
                    break;
                std::this_thread::yield(); // the preparation is behind
            }
        }
        catch (...)
        {
            const std::lock_guard<std::mutex> lock(failureMutex);
            if (!failure)
                failure = std::current_exception();
            failed.store(true, std::memory_order_release);
        }
    }

    void Await(std::uint32_t inSlot) override
    {
        while (planned[inSlot].load(std::memory_order_acquire) == 0)
        {
            if (failed.load(std::memory_order_acquire))
                RethrowFailure();
            if (!PlanSome(0))
                std::this_thread::yield(); // a helper is planning it
        }
    }

    void RethrowFailure()
    {
        std::exception_ptr thrown;
        {
            const std::lock_guard<std::mutex> lock(failureMutex);
            thrown = failure;
        }
        if (thrown)
            std::rethrow_exception(thrown);
    }

    /// No slot is handed out any more: the helpers finish the pairs they hold and return.
    void Stop()
    {
        closed.store(true, std::memory_order_release);
        taken.store(plannedCapacity, std::memory_order_relaxed);
    }
};

namespace
{

unsigned ResolveThreads(unsigned inThreads)
{
    if (inThreads != 0)
        return inThreads;
    return std::max(1u, std::thread::hardware_concurrency());
}

} // namespace

ParallelDispatcher::ParallelDispatcher(btCollisionConfiguration* inConfiguration, unsigned inThreads)
    : btCollisionDispatcher(inConfiguration), mThreads(ResolveThreads(inThreads)), mBatch(std::make_unique<Batch>())
{
}

ParallelDispatcher::~ParallelDispatcher() = default;

void ParallelDispatcher::SetThreads(unsigned inThreads)
{
    mThreads = ResolveThreads(inThreads);
}

void ParallelDispatcher::dispatchAllCollisionPairs(btOverlappingPairCache* inPairCache,
                                                   const btDispatcherInfo& inInfo, btDispatcher* inDispatcher)
{
    Batch& batch = *mBatch;
    mLastPrepared = 0;
    mLastApart = 0;
    const bool parallel = mThreads > 1 && inInfo.m_dispatchFunc == btDispatcherInfo::DISPATCH_DISCRETE &&
                          getNearCallback() == &btCollisionDispatcher::defaultNearCallback;
    const int pairCount = parallel ? inPairCache->getNumOverlappingPairs() : 0;
    if (pairCount < 2) // not worth a thread: Bullet's pass generates it
    {
        btCollisionDispatcher::dispatchAllCollisionPairs(inPairCache, inInfo, inDispatcher);
        return;
    }
    btBroadphasePair* pairs = inPairCache->getOverlappingPairArrayPtr();
    batch.Begin(std::size_t(pairCount));
    batch.motions.Begin(double(inInfo.m_timeStep));
    const std::size_t helperCount = std::min<std::size_t>(mThreads - 1, std::size_t(pairCount) - 1);
    batch.scratch.resize(std::max(batch.scratch.size(), helperCount + 1));

    // Whatever happens below, the prepared pairs are forgotten last: a plan not used (a pair the pass
    // removed, an exception) must not reach the next dispatch.
    struct Forget
    {
        Batch& batch;
        ~Forget()
        {
            for (std::size_t i = 0; i < batch.count; ++i)
                batch.pairs[i].algorithm->SetPrepared(nullptr);
            batch.count = 0;
        }
    } forget{batch};
    // This thread plans pairs too (while the pass waits for one), so it shares the sphere caches as the
    // helpers do.
    const TreeState::ConcurrentScope scope;
    std::vector<std::jthread> helpers; // joined (after `stop`) before the scope and the plans end
    struct StopHelpers
    {
        Batch& batch;
        ~StopHelpers() { batch.Stop(); }
    } stop{batch};
    helpers.reserve(helperCount);
    for (std::size_t t = 1; t <= helperCount; ++t)
        helpers.emplace_back([&batch, t] { batch.Help(std::uint32_t(t)); });

    // Serial: the pairs Bullet's near callback will process (the same tests, the algorithm made as it makes
    // it), their distances and the shapes' caches that the threads only read. Each pair is published as soon
    // as it is prepared: the helpers plan the first pairs while this thread prepares the rest.
    // Each pair is a chain of loads scattered over a large pile's memory (pair → proxies → objects → shapes
    // and algorithm): fetched ahead in stages, the loop waits on one miss at a time.
    for (int i = 0; i < pairCount; ++i)
    {
        if (i + 6 < pairCount)
            for (const btBroadphaseProxy* proxy : {pairs[i + 6].m_pProxy0, pairs[i + 6].m_pProxy1})
                PrefetchBytes(proxy, sizeof(btBroadphaseProxy));
        if (i + 3 < pairCount)
        {
            for (const btBroadphaseProxy* proxy : {pairs[i + 3].m_pProxy0, pairs[i + 3].m_pProxy1})
                PrefetchBytes(proxy->m_clientObject, sizeof(btCollisionObject));
            if (pairs[i + 3].m_algorithm != nullptr)
                PrefetchBytes(pairs[i + 3].m_algorithm, 64);
        }
        if (i + 1 < pairCount)
            for (const btBroadphaseProxy* proxy : {pairs[i + 1].m_pProxy0, pairs[i + 1].m_pProxy1})
                PrefetchBytes(static_cast<const btCollisionObject*>(proxy->m_clientObject)->getCollisionShape(), 64);
        btBroadphasePair& pair = pairs[i];
        auto* object0 = static_cast<btCollisionObject*>(pair.m_pProxy0->m_clientObject);
        auto* object1 = static_cast<btCollisionObject*>(pair.m_pProxy1->m_clientObject);
        if (!DeformableCollisionAlgorithm::Preparable(object0->getCollisionShape(), object1->getCollisionShape()) ||
            !needsCollision(object0, object1))
            continue;
        if (pair.m_algorithm == nullptr)
        {
            const btCollisionObjectWrapper wrap0 = TopLevelWrapper(*object0);
            const btCollisionObjectWrapper wrap1 = TopLevelWrapper(*object1);
            pair.m_algorithm = findAlgorithm(&wrap0, &wrap1, nullptr, BT_CONTACT_POINT_ALGORITHMS);
        }
        auto* algorithm = dynamic_cast<DeformableCollisionAlgorithm*>(pair.m_algorithm);
        if (algorithm == nullptr)
            continue;
        PreparedPair& prepared = batch.Next();
        if (!algorithm->Prepare(*object0, *object1, inInfo, batch.motions, prepared))
        {
            --batch.count;
            continue;
        }
        mLastApart += prepared.apart ? 1 : 0;
        prepared.schedule = &batch;
        prepared.slot = std::uint32_t(batch.count - 1);
        algorithm->SetPrepared(&prepared);
        batch.Publish();
    }
    batch.closed.store(true, std::memory_order_release);
    mLastPrepared = batch.count;

    // Bullet's pass, while the helpers plan: each prepared pair's algorithm waits for its plan (making
    // others meanwhile, `Batch::Await`) and commits it, in Bullet's order, on this thread.
    btCollisionDispatcher::dispatchAllCollisionPairs(inPairCache, inInfo, inDispatcher);
    batch.Stop();
    for (std::jthread& helper : helpers)
        helper.join();
    // A plan that failed but that the pass never waited for (its pair gone) still reports.
    if (batch.failed.load(std::memory_order_acquire))
        batch.RethrowFailure();
}

} // namespace bdt
