#include "DeformedMeshRenderer.h"

#include <algorithm>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/base/Error.h>
#include <cstddef>

namespace bdt::demo
{

namespace
{

constexpr GLuint cBasisUnit = 0;
constexpr GLuint cQUnit = 1;
constexpr GLuint cPreviousQUnit = 2;
constexpr int cInstanceFloats = 28; // three transform rows, colour, three previous transform rows

} // namespace

std::vector<Eigen::Vector3f> RestVertexNormals(const Model& inModel)
{
    const std::span<const Vec3f> positions = inModel.Positions();
    std::vector<Eigen::Vector3d> sums(positions.size(), Eigen::Vector3d::Zero());
    for (const Triangle& triangle : inModel.Triangles())
    {
        const Eigen::Vector3d a = positions[triangle[0]].cast<double>();
        const Eigen::Vector3d b = positions[triangle[1]].cast<double>();
        const Eigen::Vector3d c = positions[triangle[2]].cast<double>();
        const Eigen::Vector3d cross = (b - a).cross(c - a);
        for (int k = 0; k < 3; ++k)
            sums[triangle[k]] += cross;
    }
    std::vector<Eigen::Vector3f> normals(positions.size());
    for (std::size_t i = 0; i < sums.size(); ++i)
    {
        const double length = sums[i].norm();
        normals[i] =
            length > 0.0 ? Eigen::Vector3f((sums[i] / length).cast<float>()) : Eigen::Vector3f::UnitY();
    }
    return normals;
}

DeformedMeshRenderer::DeformedMeshRenderer(std::shared_ptr<const Model> inModel) : mModel(std::move(inModel))
{
    if (!mModel)
        throw Error("mesh renderer: null model");
    const Model& model = *mModel;
    const std::size_t vertexCount = model.VertexCount();
    const std::uint32_t modes = model.ModeCount();

    // Rest positions and normals, interleaved.
    const std::vector<Eigen::Vector3f> normals = RestVertexNormals(model);
    std::vector<float> vertices(6 * vertexCount);
    for (std::size_t i = 0; i < vertexCount; ++i)
        for (int k = 0; k < 3; ++k)
        {
            vertices[6 * i + k] = model.Positions()[i][k];
            vertices[6 * i + 3 + k] = normals[i][k];
        }

    // U and N interleaved per (vertex, mode), padded to RGBA.
    std::vector<float> computedNormalBasis;
    std::span<const float> normalBasis = model.NormalBasis();
    if (!model.HasNormalBasis() && modes > 0)
    {
        computedNormalBasis = MakeNormalBasis(model.Positions(), model.Triangles(), model.Basis(), modes);
        normalBasis = computedNormalBasis;
    }
    std::vector<float> basis(8 * vertexCount * modes, 0.0f);
    for (std::size_t e = 0; e < vertexCount * modes; ++e)
        for (int k = 0; k < 3; ++k)
        {
            basis[8 * e + k] = model.Basis()[3 * e + k];
            basis[8 * e + 4 + k] = normalBasis[3 * e + k];
        }

    mVertexArray = NewVertexArray();
    mVertices = NewBuffer();
    mIndices = NewBuffer();
    mInstances = NewBuffer();
    glBindVertexArray(mVertexArray.Get());
    glBindBuffer(GL_ARRAY_BUFFER, mVertices.Get());
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(vertices.size() * sizeof(float)), vertices.data(),
                 GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                          reinterpret_cast<const void*>(3 * sizeof(float)));
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, mIndices.Get());
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(model.TriangleCount() * 3 * sizeof(std::uint32_t)),
                 model.Triangles().data(), GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, mInstances.Get());
    for (GLuint a = 0; a < 7; ++a)
    {
        glEnableVertexAttribArray(2 + a);
        glVertexAttribPointer(2 + a, 4, GL_FLOAT, GL_FALSE, cInstanceFloats * sizeof(float),
                              reinterpret_cast<const void*>(std::size_t(4 * a) * sizeof(float)));
        glVertexAttribDivisor(2 + a, 1);
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);

    mBasis.format = GL_RGBA32F;
    mBasis.Upload(basis.data(), GLsizeiptr(basis.size() * sizeof(float)), false);
    mQ.format = GL_R32F;
    mPreviousQ.format = GL_R32F;
    mStats.meshBytes = (vertices.size() + basis.size()) * sizeof(float) + model.TriangleCount() * 12;
}

void DeformedMeshRenderer::UploadInstances(std::span<const MeshInstance> inInstances)
{
    const std::uint32_t modes = mModel->ModeCount();
    mInstanceScratch.resize(inInstances.size() * cInstanceFloats);
    mQScratch.assign(inInstances.size() * modes, 0.0f);
    mPreviousQScratch.assign(inInstances.size() * modes, 0.0f);
    for (std::size_t i = 0; i < inInstances.size(); ++i)
    {
        const MeshInstance& instance = inInstances[i];
        const Eigen::Matrix<float, 3, 4>& previous = instance.previousModelToWorld.value_or(instance.modelToWorld);
        float* out = mInstanceScratch.data() + i * cInstanceFloats;
        for (int row = 0; row < 3; ++row)
            for (int column = 0; column < 4; ++column)
            {
                out[4 * row + column] = instance.modelToWorld(row, column);
                out[16 + 4 * row + column] = previous(row, column);
            }
        for (int k = 0; k < 4; ++k)
            out[12 + k] = instance.color[k];
        const std::span<const float> previousQ = instance.previousQ.empty() ? instance.q : instance.previousQ;
        std::copy_n(instance.q.begin(), std::min<std::size_t>(instance.q.size(), modes),
                    mQScratch.begin() + std::ptrdiff_t(i * modes));
        std::copy_n(previousQ.begin(), std::min<std::size_t>(previousQ.size(), modes),
                    mPreviousQScratch.begin() + std::ptrdiff_t(i * modes));
    }
    const GLsizeiptr instanceBytes = GLsizeiptr(mInstanceScratch.size() * sizeof(float));
    glBindBuffer(GL_ARRAY_BUFFER, mInstances.Get());
    if (instanceBytes > mInstanceCapacity)
    {
        mInstanceCapacity = std::max(instanceBytes, mInstanceCapacity + mInstanceCapacity / 2);
        glBufferData(GL_ARRAY_BUFFER, mInstanceCapacity, nullptr, GL_STREAM_DRAW);
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, instanceBytes, mInstanceScratch.data());
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    mQ.Upload(mQScratch.data(), GLsizeiptr(mQScratch.size() * sizeof(float)), true);
    mPreviousQ.Upload(mPreviousQScratch.data(), GLsizeiptr(mPreviousQScratch.size() * sizeof(float)), true);
    mStats.lastFrameBytes = std::uint64_t(instanceBytes) + 2 * mQScratch.size() * sizeof(float);
}

void DeformedMeshRenderer::BindForDraw(const ShaderProgram& inProgram)
{
    mBasis.Bind(cBasisUnit);
    mQ.Bind(cQUnit);
    mPreviousQ.Bind(cPreviousQUnit);
    glActiveTexture(GL_TEXTURE0);
    glUniform1i(inProgram.Uniform("uBasis"), GLint(cBasisUnit));
    glUniform1i(inProgram.Uniform("uQ"), GLint(cQUnit));
    glUniform1i(inProgram.Uniform("uPreviousQ"), GLint(cPreviousQUnit));
    glUniform1i(inProgram.Uniform("uModeCount"), GLint(mModel->ModeCount()));
    glBindVertexArray(mVertexArray.Get());
}

void DeformedMeshRenderer::Draw(const ShaderProgram& inProgram, std::span<const MeshInstance> inInstances)
{
    if (inInstances.empty())
        return;
    UploadInstances(inInstances);
    BindForDraw(inProgram);
    glDrawElementsInstanced(GL_TRIANGLES, GLsizei(3 * mModel->TriangleCount()), GL_UNSIGNED_INT, nullptr,
                            GLsizei(inInstances.size()));
    glBindVertexArray(0);
}

std::vector<float> DeformedMeshRenderer::Capture(const ShaderProgram& inProgram,
                                                 std::span<const MeshInstance> inInstances)
{
    const std::size_t floats = cCaptureFloats * mModel->VertexCount() * inInstances.size();
    if (floats == 0)
        return {};
    UploadInstances(inInstances);
    inProgram.Use();
    BindForDraw(inProgram);
    GlBuffer output = NewBuffer();
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, output.Get());
    glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, GLsizeiptr(floats * sizeof(float)), nullptr, GL_STATIC_READ);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, output.Get());
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArraysInstanced(GL_POINTS, 0, GLsizei(mModel->VertexCount()), GLsizei(inInstances.size()));
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    glBindVertexArray(0);
    std::vector<float> result(floats);
    glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, GLsizeiptr(floats * sizeof(float)), result.data());
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, 0);
    return result;
}

ShaderProgram BuildCaptureProgram()
{
    return ShaderProgram::Build("deform.vert", "", {"vWorldPosition", "vWorldNormal", "vColor", "vPreviousWorldPosition"});
}

} // namespace bdt::demo
