// Many worlds sharing one model, used from several threads at once (docs/ROBUSTNESS.md; run under
// ThreadSanitizer by `./dev test --tsan`). The shared `DeformableAsset` is immutable but for its caches (proxy
// levels, BD-AABB rows), which any thread may fill; per-body state (`TreeState`, shapes, worlds) belongs to one
// thread. Debian's Bullet is not thread-safe, so the worlds step one at a time (a mutex), each with a two-thread
// `ParallelDispatcher`, while the other threads query the same asset through their own tree states. Every
// thread's answers must equal the serial reference, bit for bit.
#include "support/BulletScenes.h"

#include <bdt/samples/SampleWorld.h>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <bdt/core/queries/TreeQueries.h>
#include <gtest/gtest.h>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace bdt
{
namespace
{

constexpr int cThreads = 4;
constexpr int cRounds = 6;
constexpr int cStepsPerRound = 10;

/// What one thread computes: per round, its world's state hash after the round's steps, and a digest of
/// core queries on the shared asset with q chosen by the round.
struct ThreadAnswers
{
    std::vector<std::uint64_t> worldHashes;
    std::vector<std::size_t> contactCounts;
    std::vector<double> contactDepthSums;
    std::vector<std::uint64_t> boxRowsSeen;
};

/// The core queries one round makes: two bodies of the asset at proxy level 4 + round % 4, q from the round,
/// collided with each other; the BD-AABB rows' size read.
void QueryRound(const std::shared_ptr<const DeformableAsset>& inAsset, int inRound, ThreadAnswers& ioAnswers)
{
    const std::uint32_t level = 4 + std::uint32_t(inRound % 4);
    TreeState a(inAsset->Proxies(level));
    TreeState b(inAsset->Proxies(level));
    std::mt19937 random{std::uint32_t(inRound)};
    std::uniform_real_distribution<float> unit(-0.05f, 0.05f);
    std::vector<float> qa(a.ModeCount()), qb(b.ModeCount());
    for (float& q : qa)
        q = unit(random);
    for (float& q : qb)
        q = unit(random);
    EXPECT_TRUE(a.SetQ(qa));
    EXPECT_TRUE(b.SetQ(qb));
    DeformedBody bodyA{&a, Pose(), 1.0, 0.0};
    DeformedBody bodyB{&b, Pose(), 1.0, 0.0};
    bodyB.pose.translation = Vec3d(0.3, 0.1 * inRound, 0.0);
    std::vector<ProxyContact> contacts;
    QueryStats stats;
    CollideProxies(bodyA, bodyB, contacts, stats);
    double depths = 0.0;
    for (const ProxyContact& contact : contacts)
        depths += contact.depth;
    ioAnswers.contactCounts.push_back(contacts.size());
    ioAnswers.contactDepthSums.push_back(depths);
    ioAnswers.boxRowsSeen.push_back(inAsset->Boxes()->MemoryBytes());
}

/// One thread's work: a world of 6 bodies of the asset, stepped a round at a time under `ioBulletMutex`, with
/// the core queries of each round made outside it.
ThreadAnswers RunThread(const std::shared_ptr<const DeformableAsset>& inAsset, std::mutex* ioBulletMutex)
{
    ThreadAnswers answers;
    std::unique_ptr<SampleWorld> world;
    {
        std::unique_lock<std::mutex> lock;
        if (ioBulletMutex != nullptr)
            lock = std::unique_lock<std::mutex>(*ioBulletMutex);
        SampleWorldSettings settings;
        settings.narrowphaseThreads = 2;
        world = std::make_unique<SampleWorld>(settings);
        world->AddGroundPlane();
        PileSettings pile;
        pile.count = 6;
        pile.layers = 2;
        pile.spacing = 0.8;
        pile.body.proxyLevel = 6;
        AddPile(*world, inAsset, pile);
    }
    for (int round = 0; round < cRounds; ++round)
    {
        {
            std::unique_lock<std::mutex> lock;
            if (ioBulletMutex != nullptr)
                lock = std::unique_lock<std::mutex>(*ioBulletMutex);
            world->Step(cStepsPerRound, 1.0 / 60.0);
            answers.worldHashes.push_back(world->Deformables().StateHash());
        }
        QueryRound(inAsset, round, answers);
    }
    std::unique_lock<std::mutex> lock;
    if (ioBulletMutex != nullptr)
        lock = std::unique_lock<std::mutex>(*ioBulletMutex);
    world.reset();
    return answers;
}

TEST(SharedAssetConcurrency, ManyWorldsAndQueriesShareOneModelAcrossThreads)
{
    // The reference: one thread, on an asset of its own (so its caches are filled serially).
    const ThreadAnswers reference = RunThread(test::TurnedShapeAsset("chair", 1500, 6), nullptr);
    ASSERT_EQ(reference.worldHashes.size(), std::size_t(cRounds));

    // The same on one fresh shared asset (empty caches, filled by whichever thread asks first), from
    // cThreads threads at once.
    const std::shared_ptr<const DeformableAsset> shared = test::TurnedShapeAsset("chair", 1500, 6);
    std::mutex bulletMutex;
    std::vector<ThreadAnswers> answers(cThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < cThreads; ++t)
        threads.emplace_back([&, t] { answers[t] = RunThread(shared, &bulletMutex); });
    for (std::thread& thread : threads)
        thread.join();
    for (int t = 0; t < cThreads; ++t)
    {
        EXPECT_EQ(answers[t].worldHashes, reference.worldHashes) << "thread " << t;
        EXPECT_EQ(answers[t].contactCounts, reference.contactCounts) << "thread " << t;
        EXPECT_EQ(answers[t].contactDepthSums, reference.contactDepthSums) << "thread " << t;
        EXPECT_EQ(answers[t].boxRowsSeen, reference.boxRowsSeen) << "thread " << t;
    }
    std::size_t contacts = 0;
    for (const std::size_t count : reference.contactCounts)
        contacts += count;
    EXPECT_GT(contacts, 0u) << "the queries must find contacts to compare";
}

} // namespace
} // namespace bdt
