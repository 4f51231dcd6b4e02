// "Bounds": the Distance Hierarchy paper's scene (Madera, Day & Laycock 2007, Fig. 1), eight deforming pawns
// pressing into each other, with the three bound kinds of the plugin collided side by side every step on the
// same regions: BD-Tree spheres and BD-AABB boxes updated from q (James & Pai §3.2, §3.5), and the Distance
// Hierarchy from the deformed vertices. The panel shows each kind's overlap tests, updates, region pairs and
// time live; the view's "bounds" choice draws the kind. `bdt-bench bounds` measures the same comparison.
#include "app/Sample.h"

#include "core/queries/RegionTraversal.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <array>
#include <bdt/adapter/World.h>
#include <bdt/bullet/DeformableShape.h>
#include <chrono>
#include <cmath>
#include <imgui.h>

namespace bdt::demo
{
namespace
{

constexpr std::uint32_t cPawns = 8;
constexpr double cPeriod = 6.0; // s for the ring to close and open again
constexpr std::array<const char*, 3> cKindNames = {"BD-Tree spheres", "BD-AABB boxes", "distance hierarchy"};

// One step's work of one bound kind over every pawn pair.
struct KindStats
{
    RegionStats regions;
    std::uint64_t updates = 0;
    double microseconds = 0.0;
};

class BoundsSample final : public Sample
{
public:
    void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) override
    {
        const auto asset = BakeAsset("pawn", 7000, inOptions.modes);
        mTree = asset->TreePtr();
        mBoxes = std::make_shared<const BDAabbTree>(BDAabbTree::Build(mTree));
        mHierarchy = std::make_shared<const DistanceHierarchy>(DistanceHierarchy::Build(mTree));
        mBodies.clear();
        mDeformed.assign(cPawns, std::vector<Vec3f>(mTree->GetModel().VertexCount()));
        BodySettings desc;
        desc.mass = 0.0; // placed and deformed by the scene every step
        desc.proxyLevel = inOptions.proxyLevel;
        for (std::uint32_t p = 0; p < cPawns; ++p)
            mBodies.push_back(ioWorld.Deformables().CreateBody(asset, desc));
        mBuiltLevel = -1;
        Place(0.0);
    }

    void PreStep(SampleWorld&, double inTime) override
    {
        Place(inTime);
        Collide();
    }

    void DrawControls() override
    {
        ImGui::SliderInt("region level", &mLevel, 0, 13);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "The three kinds are traversed down to this level of the pawns' tree every step");
        if (ImGui::BeginTable("bound kinds", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit))
        {
            for (const char* header : {"bound", "tests", "updates", "pairs", "us"})
                ImGui::TableSetupColumn(header);
            ImGui::TableHeadersRow();
            for (std::size_t kind = 0; kind < mStats.size(); ++kind)
            {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(cKindNames[kind]);
                ImGui::TableNextColumn();
                ImGui::Text("%llu", static_cast<unsigned long long>(mStats[kind].regions.overlapTests));
                ImGui::TableNextColumn();
                ImGui::Text("%llu", static_cast<unsigned long long>(mStats[kind].updates));
                ImGui::TableNextColumn();
                ImGui::Text("%llu", static_cast<unsigned long long>(mStats[kind].regions.regionPairs));
                ImGui::TableNextColumn();
                ImGui::Text("%.0f", mStats[kind].microseconds);
            }
            ImGui::EndTable();
        }
        ImGui::TextDisabled("the distance hierarchy's time includes deforming the vertices");
    }

    void AddStats(nlohmann::json& ioStats) const override
    {
        static constexpr std::array<const char*, 3> keys = {"spheres", "boxes", "distance_hierarchy"};
        for (std::size_t kind = 0; kind < mStats.size(); ++kind)
            ioStats["bounds_scene"][keys[kind]] = {{"overlap_tests", mStats[kind].regions.overlapTests},
                                                   {"updates", mStats[kind].updates},
                                                   {"region_pairs", mStats[kind].regions.regionPairs},
                                                   {"microseconds", mStats[kind].microseconds}};
        ioStats["bounds_scene"]["level"] = mLevel;
    }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 0.4f;
        start.distance = 3.6f;
        start.pitch = 0.55f;
        return start;
    }

private:
    /// Puts the pawns on a ring that closes until neighbours' bases press 6 cm into each other and opens
    /// again, each spinning and rocking, each mode swinging with its own frequency (up to 2 cm a mode).
    void Place(double inTime)
    {
        const double closing = std::pow(std::sin(M_PI * inTime / cPeriod), 2.0);
        const double ring = (0.73 - 0.19 * closing) / (2.0 * std::sin(M_PI / cPawns));
        const std::uint32_t modes = mTree->ModeCount();
        mQ.resize(modes);
        for (std::uint32_t p = 0; p < cPawns; ++p)
        {
            const double angle = 2.0 * M_PI * p / cPawns;
            const btQuaternion spin(btVector3(0, 1, 0),
                                    btScalar(angle + 0.2 * inTime * (p % 2 ? 1.0 : -1.0)));
            const btQuaternion rock(btVector3(1, 0, 0), btScalar(0.14 * std::sin(1.1 * inTime + 0.8 * p)));
            btRigidBody* body = mBodies[p];
            DeformableShape& shape = *World::Shape(body);
            // The body's frame is the pawn's principal frame (x_principal = R x_rest + t): the rest frame,
            // turned by W about the pawn's foot, is placed by the body transform (W Rᵀ, X − W Rᵀ t).
            const Pose principal = shape.Asset().Mass().ToPrincipal();
            const btQuaternion turn = spin * rock;
            const Mat3d back = principal.rotation.transpose();
            const Vec3d backT = back * principal.translation;
            const float lift = -shape.Asset().GetModel().RestBounds().min().y();
            const btVector3 foot(btScalar(ring * std::cos(angle)), 0.0f, btScalar(ring * std::sin(angle)));
            const btVector3 origin =
                foot + quatRotate(turn, btVector3(0.0f, lift, 0.0f)) -
                quatRotate(turn, btVector3(btScalar(backT.x()), btScalar(backT.y()), btScalar(backT.z())));
            btMatrix3x3 restBasis;
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c)
                    restBasis[r][c] = btScalar(back(r, c));
            body->setWorldTransform(btTransform(btMatrix3x3(turn) * restBasis, origin));
            for (std::uint32_t j = 0; j < modes; ++j)
                mQ[j] = float(0.02 * std::sin((2.0 + 0.7 * j) * inTime + 0.9 * p + 1.7 * j));
            (void)shape.SetQ(mQ);
        }
    }

    /// Collides every pawn pair with each bound kind at the chosen level, timing each kind.
    void Collide()
    {
        using Clock = std::chrono::steady_clock;
        if (mBuiltLevel != mLevel)
        {
            mSpheres.clear();
            mBoxRegions.clear();
            mDistances.clear();
            for (std::uint32_t p = 0; p < cPawns; ++p)
            {
                mSpheres.emplace_back(mTree, std::uint32_t(mLevel));
                mBoxRegions.emplace_back(mBoxes, std::uint32_t(mLevel));
                mDistances.emplace_back(mHierarchy, std::uint32_t(mLevel));
            }
            mBuiltLevel = mLevel;
        }
        std::vector<RegionPair> pairs;
        const auto run = [&](auto& ioRegions, KindStats& outStats, auto&& inStart)
        {
            outStats = KindStats();
            std::uint64_t before = 0;
            for (auto& regions : ioRegions)
                before += regions.Updates();
            const auto start = Clock::now();
            for (std::uint32_t p = 0; p < cPawns; ++p)
                inStart(p, ioRegions[p]);
            for (std::uint32_t a = 0; a < cPawns; ++a)
                for (std::uint32_t b = a + 1; b < cPawns; ++b)
                {
                    pairs.clear();
                    CollideRegions(ioRegions[a], ioRegions[b], pairs, outStats.regions);
                }
            outStats.microseconds = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
            for (auto& regions : ioRegions)
                outStats.updates += regions.Updates();
            outStats.updates -= before;
        };
        const auto placement = [&](std::uint32_t inPawn)
        { return World::Shape(mBodies[inPawn])->QueryView(mBodies[inPawn]->getWorldTransform()); };
        run(mSpheres, mStats[0],
            [&](std::uint32_t inPawn, SphereRegions& ioRegions)
            {
                const DeformedBody body = placement(inPawn);
                (void)ioRegions.SetStep(body.state->Q(), body.pose, body.scale);
            });
        run(mBoxRegions, mStats[1],
            [&](std::uint32_t inPawn, BoxRegions& ioRegions)
            {
                const DeformedBody body = placement(inPawn);
                (void)ioRegions.SetStep(body.state->Q(), body.pose, body.scale);
            });
        run(mDistances, mStats[2],
            [&](std::uint32_t inPawn, DistanceRegions& ioRegions)
            {
                const DeformedBody body = placement(inPawn);
                const Model& model = mTree->GetModel();
                std::vector<Vec3f>& deformed = mDeformed[inPawn];
                for (std::size_t v = 0; v < deformed.size(); ++v)
                    deformed[v] = model.DeformedPosition(v, body.state->Q()).cast<float>();
                (void)ioRegions.SetStep(deformed, body.pose, body.scale);
            });
    }

    std::shared_ptr<const BDTree> mTree;
    std::shared_ptr<const BDAabbTree> mBoxes;
    std::shared_ptr<const DistanceHierarchy> mHierarchy;
    std::vector<btRigidBody*> mBodies;
    std::vector<float> mQ;
    std::vector<std::vector<Vec3f>> mDeformed; ///< Per pawn, for the Distance Hierarchy.
    std::vector<SphereRegions> mSpheres;
    std::vector<BoxRegions> mBoxRegions;
    std::vector<DistanceRegions> mDistances;
    std::array<KindStats, 3> mStats{};
    int mLevel = 9;
    int mBuiltLevel = -1;
};

const bool sRegistered = RegisterSample(
    "bounds", "eight deforming pawns: BD-Tree spheres vs BD-AABB boxes vs the Distance Hierarchy, live",
    [] { return std::make_unique<BoundsSample>(); });

} // namespace
} // namespace bdt::demo
