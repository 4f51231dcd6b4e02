#include "DeformableCollisionAlgorithm.h"
#include "SearchDistance.h"

#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/bullet/ParallelDispatcher.h>
#include <bdt/core/Prefetch.h>
#include <bdt/core/TreeState.h>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bdt
{

/// The pairs prepared in a dispatch (`count` of the slots, reused across dispatches with their plans'
/// storage) and each thread's scratch buffer for a pair's contacts, which keeps its capacity.
struct ParallelDispatcher::Batch
{
    std::vector<PreparedPair> pairs;
    std::size_t count = 0;
    std::vector<std::vector<PairContact>> scratch; ///< One per thread.
    /// The order the threads take the pairs in: (lower body index, higher body index, slot), sorted.
    std::vector<std::array<std::uint32_t, 3>> order;
    StepMotionCache motions; ///< Each body's motion and threshold, once a dispatch.

    PreparedPair& Next()
    {
        if (count == pairs.size())
            pairs.emplace_back();
        return pairs[count++];
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
    batch.count = 0;
    mLastPrepared = 0;
    const bool parallel = mThreads > 1 && inInfo.m_dispatchFunc == btDispatcherInfo::DISPATCH_DISCRETE &&
                          getNearCallback() == &btCollisionDispatcher::defaultNearCallback;
    const int pairCount = parallel ? inPairCache->getNumOverlappingPairs() : 0;
    btBroadphasePair* pairs = pairCount > 0 ? inPairCache->getOverlappingPairArrayPtr() : nullptr;
    batch.motions.Begin(double(inInfo.m_timeStep));
    // Serial: the pairs Bullet's near callback will process (the same tests, the algorithm made as it makes
    // it), their distances and the shapes' caches that the threads only read.
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
        if (!algorithm->Prepare(*object0, *object1, inInfo, batch.motions, batch.Next()))
            --batch.count;
    }
    if (batch.count < 2)
        batch.count = 0; // not worth a thread: Bullet's pass generates it
    if (batch.count > 0)
    {
        // Concurrent: the pairs in turn, on this thread and the helpers. Only this plugin's code runs here.
        std::atomic<std::size_t> next{0};
        std::exception_ptr failure;
        std::mutex failureMutex;
        const std::size_t helperCount = std::min<std::size_t>(mThreads - 1, batch.count - 1);
        batch.scratch.resize(std::max(batch.scratch.size(), helperCount + 1));
        // Pairs of one body one after another, in chunks per thread: a pair's bodies' data (shape, state, q)
        // is still in the processor's cache from their last pair. The body with the lower index in the world
        // leads (bodies made in a grid are near their neighbours in it). The order changes no result.
        batch.order.resize(batch.count);
        for (std::size_t i = 0; i < batch.count; ++i)
        {
            const auto indexA = std::uint32_t(batch.pairs[i].objectA->getWorldArrayIndex());
            const auto indexB = std::uint32_t(batch.pairs[i].objectB->getWorldArrayIndex());
            batch.order[i] = {std::min(indexA, indexB), std::max(indexA, indexB), std::uint32_t(i)};
        }
        std::sort(batch.order.begin(), batch.order.end());
        constexpr std::size_t cChunk = 8;
        const auto work = [&](std::uint32_t inThread)
        {
            TreeState::ConcurrentScope scope;
            std::vector<PairContact>& scratch = batch.scratch[inThread];
            try
            {
                for (std::size_t first = next.fetch_add(cChunk, std::memory_order_relaxed); first < batch.count;
                     first = next.fetch_add(cChunk, std::memory_order_relaxed))
                    for (std::size_t k = first; k < std::min(first + cChunk, batch.count); ++k)
                    {
                        // The data of the pairs to come, while this one is worked on: two stages.
                        if (k + 2 < batch.count)
                            DeformableCollisionAlgorithm::PrefetchObjects(batch.pairs[batch.order[k + 2][2]]);
                        if (k + 1 < batch.count)
                        {
                            const PreparedPair& ahead = batch.pairs[batch.order[k + 1][2]];
                            ahead.algorithm->PrefetchState(ahead);
                        }
                        PreparedPair& pair = batch.pairs[batch.order[k][2]];
                        pair.algorithm->GeneratePrepared(pair, scratch);
                    }
            }
            catch (...)
            {
                const std::lock_guard<std::mutex> lock(failureMutex);
                if (!failure)
                    failure = std::current_exception();
                next.store(batch.count, std::memory_order_relaxed);
            }
        };
        {
            std::vector<std::jthread> helpers;
            helpers.reserve(helperCount);
            for (std::size_t t = 1; t <= helperCount; ++t)
                helpers.emplace_back(work, std::uint32_t(t));
            work(0);
        } // joined
        if (failure)
            std::rethrow_exception(failure);
        for (std::size_t i = 0; i < batch.count; ++i)
            batch.pairs[i].algorithm->SetPrepared(&batch.pairs[i]);
        mLastPrepared = batch.count;
    }
    // Bullet's pass; each prepared pair's algorithm uses its contacts once. Whatever was not used (a pair the
    // pass removed, an exception) is forgotten before the next dispatch.
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
    btCollisionDispatcher::dispatchAllCollisionPairs(inPairCache, inInfo, inDispatcher);
}

} // namespace bdt
