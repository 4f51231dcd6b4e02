// The deformation shader against the CPU: transform feedback captures what deform.vert computes for each
// vertex of several instances, compared with p + U q and normalize(n + N q) in double, mapped to world.

#include "render/DeformedMeshRenderer.h"

#include "../GlTestContext.h"
#include "render/Palette.h"

#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <random>

namespace bdt::demo
{
namespace
{

std::shared_ptr<const Model> SmoothModel(EShape inShape, std::uint32_t inTriangles, std::uint32_t inModes,
                                         bool inNormalBasis)
{
    ShapeMesh mesh = MakeShape(inShape, inTriangles);
    Model model = MakeSmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inModes);
    if (!inNormalBasis)
    {
        ModelData data = model.Data();
        data.normalBasis.clear();
        model = Model::Create(std::move(data));
    }
    return std::make_shared<const Model>(std::move(model));
}

// An instance with a random rotation, a uniform scale in [0.5, 2], a translation within 10 m and q_j with
// |q_j| up to `inAmplitude`.
MeshInstance RandomInstance(std::mt19937& ioRandom, std::uint32_t inModes, double inAmplitude,
                            std::vector<float>& outQ)
{
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const Eigen::Quaterniond rotation =
        Eigen::Quaterniond(unit(ioRandom), unit(ioRandom), unit(ioRandom), unit(ioRandom)).normalized();
    const double scale = 1.25 + 0.75 * unit(ioRandom);
    MeshInstance instance;
    instance.modelToWorld.leftCols<3>() = (scale * rotation.toRotationMatrix()).cast<float>();
    instance.modelToWorld.col(3) =
        Eigen::Vector3f(float(10 * unit(ioRandom)), float(10 * unit(ioRandom)), float(10 * unit(ioRandom)));
    outQ.resize(inModes);
    for (float& q : outQ)
        q = float(inAmplitude * unit(ioRandom));
    instance.q = outQ;
    return instance;
}

// `inCount` instances as `RandomInstance` makes them; their q live in `outQs`, which must outlive them.
std::vector<MeshInstance> RandomInstances(std::mt19937& ioRandom, std::size_t inCount, std::uint32_t inModes,
                                          double inAmplitude, std::vector<std::vector<float>>& outQs)
{
    outQs.assign(inCount, {});
    std::vector<MeshInstance> instances;
    for (std::vector<float>& q : outQs)
        instances.push_back(RandomInstance(ioRandom, inModes, inAmplitude, q));
    return instances;
}

struct Deviation
{
    double position = 0.0; ///< Largest |GPU − CPU| over the model's world extent.
    double normal = 0.0;   ///< Largest |GPU − CPU| of the unit normals.
};

// Captures the instances and compares every vertex with the CPU's double-precision deformation.
Deviation CompareWithCpu(DeformedMeshRenderer& ioRenderer, const std::vector<MeshInstance>& inInstances)
{
    const ShaderProgram capture = BuildCaptureProgram();
    const std::vector<float> gpu = ioRenderer.Capture(capture, inInstances);
    const Model& model = ioRenderer.GetModel();
    const std::size_t vertexCount = model.VertexCount();
    const std::uint32_t modes = model.ModeCount();
    EXPECT_EQ(gpu.size(), cCaptureFloats * vertexCount * inInstances.size());
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    const std::vector<Eigen::Vector3f> restNormals = RestVertexNormals(model);
    const std::span<const float> normalBasis = model.NormalBasis();
    const std::vector<float> madeNormalBasis =
        model.HasNormalBasis() || modes == 0
            ? std::vector<float>()
            : MakeNormalBasis(model.Positions(), model.Triangles(), model.Basis(), modes);
    const std::span<const float> normals = model.HasNormalBasis() ? normalBasis : madeNormalBasis;
    const double extent = double((model.RestBounds().max() - model.RestBounds().min()).norm());

    Deviation deviation;
    for (std::size_t k = 0; k < inInstances.size(); ++k)
    {
        const MeshInstance& instance = inInstances[k];
        const Eigen::Matrix3d linear = instance.modelToWorld.leftCols<3>().cast<double>();
        const Eigen::Vector3d translation = instance.modelToWorld.col(3).cast<double>();
        const double worldExtent = extent * linear.col(0).norm() + translation.norm();
        for (std::size_t i = 0; i < vertexCount; ++i)
        {
            const Eigen::Vector3d position = linear * model.DeformedPosition(i, instance.q) + translation;
            Eigen::Vector3d normal = restNormals[i].cast<double>();
            for (std::uint32_t j = 0; j < modes; ++j)
                for (int c = 0; c < 3; ++c)
                    normal[c] += double(normals[(i * modes + j) * 3 + c]) * double(instance.q[j]);
            normal = (linear * normal).normalized();
            const float* out = gpu.data() + cCaptureFloats * (k * vertexCount + i);
            deviation.position =
                std::max(deviation.position,
                         (Eigen::Vector3d(out[0], out[1], out[2]) - position).norm() / worldExtent);
            deviation.normal =
                std::max(deviation.normal, (Eigen::Vector3d(out[3], out[4], out[5]) - normal).norm());
        }
    }
    return deviation;
}

TEST(DeformedMeshRenderer, ShaderDeformsEveryVertexAsTheCpu)
{
    BDT_REQUIRE_GL_CONTEXT();
    // Several shapes and mode counts, several q per draw (one per instance), twice over.
    std::mt19937 random(7);
    for (const auto& [shape, modes] :
         {std::pair{EShape::Chair, 10u}, {EShape::Sphere, 3u}, {EShape::Torus, 24u}})
    {
        DeformedMeshRenderer renderer(SmoothModel(shape, 3000, modes, true));
        for (int round = 0; round < 2; ++round)
        {
            std::vector<std::vector<float>> qs;
            const Deviation deviation = CompareWithCpu(renderer, RandomInstances(random, 5, modes, 0.3, qs));
            EXPECT_LT(deviation.position, 1e-4) << ShapeName(shape) << " M = " << modes;
            EXPECT_LT(deviation.normal, 1e-4) << ShapeName(shape) << " M = " << modes;
        }
        EXPECT_EQ(renderer.Stats().cpuDeformedVertices, 0u);
    }
}

TEST(DeformedMeshRenderer, ModelWithoutNormalBasisGetsOneComputed)
{
    BDT_REQUIRE_GL_CONTEXT();
    std::mt19937 random(11);
    DeformedMeshRenderer renderer(SmoothModel(EShape::Box, 2000, 6, false));
    std::vector<std::vector<float>> qs;
    const Deviation deviation = CompareWithCpu(renderer, RandomInstances(random, 3, 6, 0.2, qs));
    EXPECT_LT(deviation.position, 1e-4);
    EXPECT_LT(deviation.normal, 1e-4);
}

TEST(DeformedMeshRenderer, RigidModelIsDrawnAtRest)
{
    BDT_REQUIRE_GL_CONTEXT();
    std::mt19937 random(3);
    DeformedMeshRenderer renderer(SmoothModel(EShape::Sphere, 500, 0, true));
    std::vector<std::vector<float>> qs;
    const Deviation deviation = CompareWithCpu(renderer, RandomInstances(random, 2, 0, 0.0, qs));
    EXPECT_LT(deviation.position, 1e-6);
    EXPECT_LT(deviation.normal, 1e-5);
}

TEST(DeformedMeshRenderer, DeformationMovesTheCapturedVertices)
{
    // The comparison above would pass for a shader that ignored q if the CPU ignored it too: here q moves
    // the GPU's vertices by about its size.
    BDT_REQUIRE_GL_CONTEXT();
    DeformedMeshRenderer renderer(SmoothModel(EShape::Chair, 2000, 4, true));
    const ShaderProgram capture = BuildCaptureProgram();
    const std::vector<float> zero(4, 0.0f), bent = {0.2f, -0.1f, 0.15f, 0.05f};
    MeshInstance rest, deformed;
    rest.q = zero;
    deformed.q = bent;
    const std::vector<float> a = renderer.Capture(capture, std::vector<MeshInstance>{rest});
    const std::vector<float> b = renderer.Capture(capture, std::vector<MeshInstance>{deformed});
    ASSERT_EQ(a.size(), b.size());
    double moved = 0.0;
    for (std::size_t i = 0; i < a.size(); i += cCaptureFloats)
        moved = std::max(moved, double((Eigen::Vector3f(b[i], b[i + 1], b[i + 2]) -
                                        Eigen::Vector3f(a[i], a[i + 1], a[i + 2]))
                                           .norm()));
    EXPECT_GT(moved, 0.05);
}

TEST(DeformedMeshRenderer, DisplacementColourIsTheCpusHeatOfUq)
{
    // uDisplacementRange > 0: each vertex of a deformable body takes HeatColor(|linear · U_i q| / range) in
    // linear light, the instance's alpha; 0 keeps the instance colour.
    BDT_REQUIRE_GL_CONTEXT();
    std::mt19937 random(5);
    const std::uint32_t modes = 10;
    DeformedMeshRenderer renderer(SmoothModel(EShape::Chair, 3000, modes, true));
    const Model& model = renderer.GetModel();
    std::vector<std::vector<float>> qs;
    std::vector<MeshInstance> instances = RandomInstances(random, 4, modes, 0.3, qs);
    for (MeshInstance& instance : instances)
        instance.color = Eigen::Vector4f(0.3f, 0.6f, 0.2f, 0.75f);
    const ShaderProgram capture = BuildCaptureProgram();
    const float range = 0.4f;
    for (const float setting : {range, 0.0f})
    {
        capture.Use();
        glUniform1f(capture.Uniform("uDisplacementRange"), setting);
        const std::vector<float> gpu = renderer.Capture(capture, instances);
        ASSERT_EQ(gpu.size(), cCaptureFloats * model.VertexCount() * instances.size());
        double deviation = 0.0;
        std::size_t nearRest = 0, farMoved = 0;
        for (std::size_t k = 0; k < instances.size(); ++k)
        {
            const Eigen::Matrix3d linear = instances[k].modelToWorld.leftCols<3>().cast<double>();
            for (std::size_t i = 0; i < model.VertexCount(); ++i)
            {
                const Eigen::Vector3d moved =
                    model.DeformedPosition(i, instances[k].q) - model.Positions()[i].cast<double>();
                const float t = float((linear * moved).norm() / double(range));
                const Eigen::Vector4f expected =
                    setting > 0.0f ? (Eigen::Vector4f() << ToLinear(HeatColor(t)), 0.75f).finished()
                                   : instances[k].color;
                const float* out = gpu.data() + cCaptureFloats * (k * model.VertexCount() + i) + 6;
                deviation =
                    std::max(deviation, double((Eigen::Vector4f(out) - expected).cwiseAbs().maxCoeff()));
                nearRest += t < 0.2f ? 1 : 0;
                farMoved += t > 0.6f ? 1 : 0;
            }
        }
        EXPECT_LT(deviation, 2e-3) << "range " << setting;
        // The comparison covers both ends of the scale.
        EXPECT_GT(nearRest, 100u);
        EXPECT_GT(farMoved, 100u);
    }
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

TEST(DeformedMeshRenderer, PreviousPositionAndMotionColourAreTheCpusFromThePreviousTransformAndQ)
{
    // Each instance also brings where it was a step earlier (transform and q): vPreviousWorldPosition is the
    // vertex deformed and placed by those, and uMotionRange > 0 colours it by HeatColor(|now - then| / range),
    // rigid primitives (M = 0) included; without a previous state the vertex has not moved.
    BDT_REQUIRE_GL_CONTEXT();
    std::mt19937 random(13);
    const std::uint32_t modes = 8;
    DeformedMeshRenderer renderer(SmoothModel(EShape::Chair, 3000, modes, true));
    const Model& model = renderer.GetModel();
    std::vector<std::vector<float>> qs, previousQs;
    std::vector<MeshInstance> instances = RandomInstances(random, 4, modes, 0.3, qs);
    const std::vector<MeshInstance> before = RandomInstances(random, 4, modes, 0.3, previousQs);
    for (std::size_t k = 0; k < instances.size(); ++k)
    {
        // A step's motion: the transform a little way off (10 cm, a few degrees), q from another draw.
        Eigen::Matrix<float, 3, 4> previous = instances[k].modelToWorld;
        previous.leftCols<3>() = previous.leftCols<3>() * Eigen::AngleAxisf(0.05f, Eigen::Vector3f::UnitY()).matrix();
        previous.col(3) += Eigen::Vector3f(0.1f, -0.05f, 0.02f);
        instances[k].previousModelToWorld = previous;
        instances[k].previousQ = before[k].q;
    }
    instances[3].previousModelToWorld.reset(); // as now
    instances[3].previousQ = {};
    const ShaderProgram capture = BuildCaptureProgram();
    const float range = 0.3f;
    capture.Use();
    glUniform1f(capture.Uniform("uMotionRange"), range);
    const std::vector<float> gpu = renderer.Capture(capture, instances);
    ASSERT_EQ(gpu.size(), cCaptureFloats * model.VertexCount() * instances.size());
    double positionDeviation = 0.0, colourDeviation = 0.0;
    std::size_t slow = 0, fast = 0;
    for (std::size_t k = 0; k < instances.size(); ++k)
    {
        const MeshInstance& instance = instances[k];
        const Eigen::Matrix<float, 3, 4> then = instance.previousModelToWorld.value_or(instance.modelToWorld);
        const std::span<const float> thenQ = instance.previousQ.empty() ? instance.q : instance.previousQ;
        const double extent = double(then.col(3).norm()) + 10.0;
        for (std::size_t i = 0; i < model.VertexCount(); ++i)
        {
            const Eigen::Vector3d now = instance.modelToWorld.leftCols<3>().cast<double>() *
                                            model.DeformedPosition(i, instance.q) +
                                        instance.modelToWorld.col(3).cast<double>();
            const Eigen::Vector3d previous =
                then.leftCols<3>().cast<double>() * model.DeformedPosition(i, thenQ) + then.col(3).cast<double>();
            const float* out = gpu.data() + cCaptureFloats * (k * model.VertexCount() + i);
            positionDeviation =
                std::max(positionDeviation, (Eigen::Vector3d(out[10], out[11], out[12]) - previous).norm() / extent);
            const float t = float((now - previous).norm() / double(range));
            const Eigen::Vector4f expected = (Eigen::Vector4f() << ToLinear(HeatColor(t)), instance.color.w()).finished();
            colourDeviation = std::max(colourDeviation, double((Eigen::Vector4f(out + 6) - expected).cwiseAbs().maxCoeff()));
            slow += t < 0.2f ? 1 : 0;
            fast += t > 0.6f ? 1 : 0;
        }
    }
    EXPECT_LT(positionDeviation, 1e-4);
    EXPECT_LT(colourDeviation, 2e-3);
    EXPECT_GE(slow, model.VertexCount()); // the instance without a previous state, at least
    EXPECT_GT(fast, 100u);

    // A rigid primitive (M = 0) moved by its transform alone.
    DeformedMeshRenderer box(SmoothModel(EShape::Box, 500, 0, true));
    MeshInstance moved;
    moved.previousModelToWorld = moved.modelToWorld;
    moved.previousModelToWorld->col(3) = Eigen::Vector3f(0, -0.15f, 0);
    const std::vector<float> boxGpu = box.Capture(capture, std::vector<MeshInstance>{moved});
    const Eigen::Vector4f halfWay = (Eigen::Vector4f() << ToLinear(HeatColor(0.5f)), 1.0f).finished();
    for (std::size_t i = 0; i < box.GetModel().VertexCount(); i += 17)
    {
        const float* out = boxGpu.data() + cCaptureFloats * i;
        EXPECT_LT((Eigen::Vector4f(out + 6) - halfWay).cwiseAbs().maxCoeff(), 2e-3) << i;
        EXPECT_NEAR(out[11], out[1] - 0.15f, 1e-6) << i;
    }
    glUniform1f(capture.Uniform("uMotionRange"), 0.0f);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

} // namespace
} // namespace bdt::demo
