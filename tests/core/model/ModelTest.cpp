#include <bdt/core/base/Error.h>
#include <bdt/core/model/Model.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace bdt
{
namespace
{

ModelData Tetrahedron(std::uint32_t inModes)
{
    ModelData data;
    data.positions = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(0, 1, 0), Vec3f(0, 0, 1)};
    data.triangles = {Triangle{0, 2, 1}, Triangle{0, 1, 3}, Triangle{0, 3, 2}, Triangle{1, 2, 3}};
    data.modeCount = inModes;
    data.basis.assign(3 * 4 * inModes, 0.25f);
    return data;
}

void ExpectRejected(ModelData inData, const char* inFragment)
{
    try
    {
        Model::Create(std::move(inData));
        FAIL() << "expected bdt::Error containing '" << inFragment << "'";
    }
    catch (const Error& error)
    {
        EXPECT_NE(std::string(error.what()).find(inFragment), std::string::npos) << error.what();
        EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
    }
}

TEST(Model, AcceptsValidDataAndComputesDeformedPositions)
{
    ModelData data = Tetrahedron(2);
    data.basis[3 * (1 * 2 + 1) + 0] = 2.0f; // U_{1,1} = (2, .25, .25)
    const Model model = Model::Create(std::move(data));
    EXPECT_EQ(model.VertexCount(), 4u);
    EXPECT_EQ(model.ModeCount(), 2u);
    const float q[] = {0.5f, -1.0f};
    const Vec3d p = model.DeformedPosition(1, q);
    EXPECT_DOUBLE_EQ(p.x(), 1.0 + 0.25 * 0.5 - 2.0);
    EXPECT_DOUBLE_EQ(p.y(), 0.25 * 0.5 - 0.25);
    EXPECT_EQ(model.DegenerateTriangleCount(), 0u);
}

TEST(Model, RejectsBadInputWithOneLineErrors)
{
    ExpectRejected(ModelData{}, "no vertices");
    {
        ModelData data = Tetrahedron(1);
        data.triangles.clear();
        ExpectRejected(std::move(data), "no triangles");
    }
    {
        ModelData data = Tetrahedron(1);
        data.triangles[2][1] = 4;
        ExpectRejected(std::move(data), "out of range");
    }
    {
        ModelData data = Tetrahedron(1);
        data.positions[3].y() = std::numeric_limits<float>::quiet_NaN();
        ExpectRejected(std::move(data), "non-finite");
    }
    {
        ModelData data = Tetrahedron(1);
        data.basis[5] = std::numeric_limits<float>::infinity();
        ExpectRejected(std::move(data), "not finite");
    }
    {
        ModelData data = Tetrahedron(2);
        data.basis.pop_back();
        ExpectRejected(std::move(data), "expected 3*N*M");
    }
    {
        ModelData data = Tetrahedron(2);
        data.normalBasis.assign(5, 0.0f);
        ExpectRejected(std::move(data), "normal basis");
    }
    {
        ModelData data = Tetrahedron(2);
        data.modes.resize(3);
        ExpectRejected(std::move(data), "mode records");
    }
    {
        ModelData data = Tetrahedron(1);
        data.modes = {ModeInfo{-1.0f, 0.0f}};
        ExpectRejected(std::move(data), "invalid frequency");
    }
}

TEST(Model, CountsDegenerateTriangles)
{
    ModelData data = Tetrahedron(0);
    data.positions.push_back(Vec3f(2, 0, 0));
    data.triangles.push_back(Triangle{0, 0, 1}); // repeated index
    data.triangles.push_back(Triangle{0, 1, 4}); // collinear: zero area
    const Model model = Model::Create(std::move(data));
    EXPECT_EQ(model.DegenerateTriangleCount(), 2u);
}

TEST(Model, ReorderRequiresAPermutation)
{
    const Model model = Model::Create(Tetrahedron(0));
    const std::uint32_t good[] = {3, 2, 1, 0};
    const Model reordered = model.WithTriangleOrder(good);
    EXPECT_EQ(reordered.Triangles()[0], model.Triangles()[3]);
    const std::uint32_t repeated[] = {0, 0, 1, 2};
    EXPECT_THROW(model.WithTriangleOrder(repeated), Error);
    const std::uint32_t outOfRange[] = {0, 1, 2, 7};
    EXPECT_THROW(model.WithTriangleOrder(outOfRange), Error);
}

} // namespace
} // namespace bdt
