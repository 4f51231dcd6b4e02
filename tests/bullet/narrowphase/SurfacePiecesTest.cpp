// The surface model's contact pieces on one side of a pair (`PieceSide`, SurfacePieces.cpp): pieces coarser than
// the contact regions stand in only while the body is as good as rigid there (`cCoarsePieceShare`), and then make
// the contacts the triangles would, deepest point for deepest point (brute force over the deformed vertices).
// Contacts left unnamed (`PieceNamer`) are those named at once, once named.
#include "bullet/narrowphase/ContactGeneration.h"
#include "bullet/manifold/ContactRegions.h"
#include "bullet/narrowphase/SurfacePieces.h"
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/ContactProxies.h>
#include <algorithm>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cMaxDistance = 0.02; // m, the search distance of the calls

// The sandbox's chair at 3000 triangles: 10 smooth modes, proxies at level 7, the surface model.
std::unique_ptr<DeformableShape> Chair()
{
    DeformableShapeSettings settings;
    settings.proxyLevel = 7;
    settings.contactModel = EContactModel::Surface;
    return std::make_unique<DeformableShape>(test::ShapeAsset("chair", 3000, 10), settings);
}

// q with every mode at `inAmplitude`, alternating in sign.
std::vector<float> Bent(float inAmplitude)
{
    std::vector<float> q(10);
    for (std::size_t j = 0; j < q.size(); ++j)
        q[j] = (j % 2 == 0 ? 1.0f : -1.0f) * inAmplitude;
    return q;
}

// The levels of the pieces every proxy of the chair collides as (`PieceSide::PiecesOf`), at its current q.
struct PieceLevels
{
    std::uint32_t coarsest = std::numeric_limits<std::uint32_t>::max();
    std::size_t distinct = 0; ///< Distinct pieces over all the proxies.
};

PieceLevels LevelsOfThePieces(const DeformableShape& inShape)
{
    PieceScratch scratch;
    PieceSide side(inShape, inShape.QueryView(btTransform::getIdentity()), scratch);
    EXPECT_TRUE(side.Available());
    const ContactProxies& proxies = inShape.State().Proxies();
    const BDTree& tree = inShape.State().Tree();
    std::vector<std::uint32_t> pieces;
    PieceLevels levels;
    for (std::uint32_t node = 0; node < proxies.VisitCount(); ++node)
        if (proxies.IsProxy(node))
            for (const std::uint32_t piece : side.PiecesOf(node))
            {
                pieces.push_back(piece);
                if (piece < tree.NodeCount())
                    levels.coarsest = std::min<std::uint32_t>(levels.coarsest, tree.Node(piece).level);
            }
    std::sort(pieces.begin(), pieces.end());
    levels.distinct = std::size_t(std::unique(pieces.begin(), pieces.end()) - pieces.begin());
    return levels;
}

TEST(SurfacePieces, CoarsePiecesStandInOnlyWhereTheBodyIsAsGoodAsRigid)
{
    std::unique_ptr<DeformableShape> chair = Chair();
    const std::uint32_t regionLevel = RegionLevel(chair->Settings().proxyLevel, chair->Settings().regionDepth);

    // Rigid: some parts collide as pieces above the regions, so fewer pieces in all.
    ASSERT_TRUE(chair->SetQ(Bent(0.0f)));
    const PieceLevels rigid = LevelsOfThePieces(*chair);
    EXPECT_LT(rigid.coarsest, regionLevel);

    // Bent slightly (q_j = ±1e-4: the regions' pieces grow by micrometres, well within the tolerance): every piece
    // at or below the regions.
    ASSERT_TRUE(chair->SetQ(Bent(1e-4f)));
    const PieceLevels bent = LevelsOfThePieces(*chair);
    EXPECT_GE(bent.coarsest, regionLevel);
    EXPECT_LT(rigid.distinct, bent.distinct) << rigid.distinct << " pieces rigid, " << bent.distinct << " bent";
}

// The chair tilted onto the plane y = 0 at q `inQ`, sunk so that its lowest deformed vertex is `inDepth` (m) under
// it: the contacts, and the lowest vertex's height by brute force.
struct OnThePlane
{
    std::vector<PairContact> contacts;
    QueryStats stats;
    double lowest = 0.0;
};

OnThePlane PutOnThePlane(DeformableShape& ioChair, const std::vector<float>& inQ, double inDepth)
{
    EXPECT_TRUE(ioChair.SetQ(inQ));
    btTransform transform(btQuaternion(btVector3(1, 0, 1).normalized(), 0.3f), btVector3(0, 0, 0));
    const auto lowestHeight = [&]
    {
        const DeformedBody body = ioChair.QueryView(transform);
        const Model& model = body.state->Tree().GetModel();
        double lowest = std::numeric_limits<double>::infinity();
        for (std::uint32_t v = 0; v < model.VertexCount(); ++v)
            lowest = std::min(lowest, body.pose.Apply(body.scale * model.DeformedPosition(v, body.state->Q()))[1]);
        return lowest;
    };
    transform.getOrigin().setY(btScalar(-inDepth - lowestHeight()));
    btStaticPlaneShape plane(btVector3(0, 1, 0), 0);
    btCollisionObject objectA, objectB;
    objectA.setCollisionShape(&ioChair);
    objectB.setCollisionShape(&plane);
    const btCollisionObjectWrapper a(nullptr, &ioChair, &objectA, transform, -1, -1);
    const btCollisionObjectWrapper b(nullptr, &plane, &objectB, btTransform::getIdentity(), -1, -1);
    OnThePlane result;
    GenerateContacts(a, b, cMaxDistance, result.contacts, result.stats);
    result.lowest = lowestHeight();
    return result;
}

TEST(SurfacePieces, CoarsePiecesFindTheDeepestPointAsTheFineOnesDo)
{
    std::unique_ptr<DeformableShape> chair = Chair();
    for (const float amplitude : {0.0f, 2e-3f})
    {
        const OnThePlane put = PutOnThePlane(*chair, Bent(amplitude), 0.003);
        ASSERT_FALSE(put.contacts.empty()) << "amplitude " << amplitude;
        EXPECT_GT(put.stats.piecePairs, 0u) << "amplitude " << amplitude;
        double deepest = std::numeric_limits<double>::infinity();
        for (const PairContact& contact : put.contacts)
        {
            EXPECT_TRUE(contact.feature0.OnSurface()) << "amplitude " << amplitude;
            EXPECT_NEAR(contact.normal.y(), 1.0, 1e-9) << "amplitude " << amplitude;
            deepest = std::min(deepest, contact.distance);
        }
        // The deepest contact is the lowest vertex, within the chair's flatness and float rounding; never
        // shallower by more than that.
        EXPECT_NEAR(deepest, put.lowest, 2e-5) << "amplitude " << amplitude;
    }
}

// Two bent chairs overlapping, placed `inOffset` (a fraction of the chair's bounding radius) apart and the
// second turned by `inAngle` about (1, 1, 0): their contacts named at once, and named later and then cut to the
// search distance.
struct NamedBothWays
{
    std::vector<PairContact> now, later; ///< `later` named after the call.
    std::size_t unnamed = 0;             ///< How many `later` left unnamed.
};

NamedBothWays ContactsBothWays(DeformableShape& ioA, DeformableShape& ioB, const Vec3d& inOffset, float inAngle)
{
    const double radius = double(ioA.State().Tree().Row(0)[3]);
    btCollisionObject objectA, objectB;
    objectA.setCollisionShape(&ioA);
    objectB.setCollisionShape(&ioB);
    const btTransform transformA = btTransform::getIdentity();
    const btTransform transformB(btQuaternion(btVector3(1, 1, 0).normalized(), inAngle),
                                 ToBtVector(radius * inOffset));
    const btCollisionObjectWrapper a(nullptr, &ioA, &objectA, transformA, -1, -1);
    const btCollisionObjectWrapper b(nullptr, &ioB, &objectB, transformB, -1, -1);
    NamedBothWays result;
    QueryStats stats;
    GenerateContacts(a, b, cMaxDistance, result.now, stats);
    GenerateContacts(a, b, cMaxDistance, result.later, stats, nullptr, nullptr, nullptr,
                     std::numeric_limits<double>::infinity(), nullptr, EPieceNames::Later);
    const PieceNamer namer = PieceNamer::ForPair(a, b);
    for (PairContact& contact : result.later)
    {
        // Unnamed, a contact is never further than the surfaces it stands for.
        const double unnamed = contact.distance;
        const bool wasUnnamed = contact.Unnamed();
        result.unnamed += wasUnnamed ? 1 : 0;
        namer.Name(contact);
        EXPECT_FALSE(contact.Unnamed());
        if (wasUnnamed)
        {
            EXPECT_LE(unnamed, contact.distance + 1e-12);
        }
    }
    // Unnamed, more may pass the search distance: those the surfaces' own distance puts beyond it go.
    std::erase_if(result.later, [](const PairContact& inContact) { return inContact.distance > cMaxDistance; });
    return result;
}

TEST(SurfacePieces, ContactsNamedLaterAreTheContactsNamedAtOnce)
{
    std::unique_ptr<DeformableShape> chairA = Chair(), chairB = Chair();
    std::size_t unnamed = 0, compared = 0;
    for (const float amplitude : {0.0f, 1e-3f})
    {
        ASSERT_TRUE(chairA->SetQ(Bent(amplitude)));
        ASSERT_TRUE(chairB->SetQ(Bent(-amplitude)));
        for (const Vec3d& offset : {Vec3d(0.1, 0.0, 0.0), Vec3d(0.0, 0.6, 0.1), Vec3d(0.3, -0.2, 0.4)})
            for (const float angle : {0.0f, 0.4f, 1.3f})
            {
                const NamedBothWays both = ContactsBothWays(*chairA, *chairB, offset, angle);
                ASSERT_EQ(both.now.size(), both.later.size());
                for (std::size_t i = 0; i < both.now.size(); ++i)
                {
                    const PairContact &now = both.now[i], &named = both.later[i];
                    EXPECT_EQ(now.feature0.node, named.feature0.node);
                    EXPECT_EQ(now.feature0.triangle, named.feature0.triangle);
                    EXPECT_EQ(now.feature1.node, named.feature1.node);
                    EXPECT_EQ(now.feature1.triangle, named.feature1.triangle);
                    EXPECT_LT((now.feature0.barycentric - named.feature0.barycentric).norm(), 1e-12);
                    EXPECT_NEAR(now.distance, named.distance, 1e-12);
                    EXPECT_LT((now.pointOnB - named.pointOnB).norm(), 1e-12);
                    ++compared;
                }
                unnamed += both.unnamed;
            }
    }
    EXPECT_GT(compared, 100u);
    EXPECT_GT(unnamed, 100u);
}

} // namespace
} // namespace bdt
