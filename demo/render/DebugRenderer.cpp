#include "DebugRenderer.h"

#include <bdt/core/model/ProceduralShapes.h>

namespace bdt::demo
{

DebugRenderer::DebugRenderer()
{
    mSphereProgram = ShaderProgram::Build("sphere.vert", "lit.frag");
    mLineProgram = ShaderProgram::Build("line.vert", "line.frag");
    mGroundProgram = ShaderProgram::Build("ground.vert", "ground.frag");

    // A unit sphere of about 320 triangles: normals equal positions.
    const ShapeMesh sphere = MakeShape(EShape::Sphere, 320);
    std::vector<float> positions;
    for (const Vec3f& p : sphere.positions)
    {
        const Vec3f unit = p.normalized();
        positions.insert(positions.end(), {unit.x(), unit.y(), unit.z()});
    }
    mSphereIndexCount = GLsizei(3 * sphere.triangles.size());

    mSphereArray = NewVertexArray();
    mSphereMesh = NewBuffer();
    mSphereIndices = NewBuffer();
    mSphereInstances = NewBuffer();
    glBindVertexArray(mSphereArray.Get());
    glBindBuffer(GL_ARRAY_BUFFER, mSphereMesh.Get());
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(positions.size() * sizeof(float)), positions.data(),
                 GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, mSphereIndices.Get());
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(sphere.triangles.size() * sizeof(Triangle)),
                 sphere.triangles.data(), GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, mSphereInstances.Get());
    for (GLuint a = 0; a < 2; ++a)
    {
        glEnableVertexAttribArray(2 + a);
        glVertexAttribPointer(2 + a, 4, GL_FLOAT, GL_FALSE, 8 * sizeof(float),
                              reinterpret_cast<const void*>(std::size_t(4 * a) * sizeof(float)));
        glVertexAttribDivisor(2 + a, 1);
    }

    mLineArray = NewVertexArray();
    mLineBuffer = NewBuffer();
    glBindVertexArray(mLineArray.Get());
    glBindBuffer(GL_ARRAY_BUFFER, mLineBuffer.Get());
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 7 * sizeof(float), nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 7 * sizeof(float),
                          reinterpret_cast<const void*>(3 * sizeof(float)));

    mGroundArray = NewVertexArray(); // the ground's corners come from gl_VertexID
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

void DebugRenderer::AddSphere(const Eigen::Vector3f& inCenter, float inRadius, const Eigen::Vector4f& inColor)
{
    mSpheres.insert(mSpheres.end(), {inCenter.x(), inCenter.y(), inCenter.z(), inRadius, inColor[0],
                                     inColor[1], inColor[2], inColor[3]});
}

void DebugRenderer::AddLine(const Eigen::Vector3f& inFrom, const Eigen::Vector3f& inTo,
                            const Eigen::Vector4f& inColor)
{
    for (const Eigen::Vector3f& p : {inFrom, inTo})
        mLines.insert(mLines.end(), {p.x(), p.y(), p.z(), inColor[0], inColor[1], inColor[2], inColor[3]});
}

void DebugRenderer::DrawGround(const Eigen::Matrix4f& inViewProjection, const Eigen::Vector3f& inEye,
                               float inHeight, float inHalfSize, const Eigen::Vector3f& inBackground)
{
    mGroundProgram.Use();
    glUniformMatrix4fv(mGroundProgram.Uniform("uViewProjection"), 1, GL_FALSE, inViewProjection.data());
    glUniform1f(mGroundProgram.Uniform("uHeight"), inHeight);
    glUniform1f(mGroundProgram.Uniform("uHalfSize"), inHalfSize);
    glUniform3fv(mGroundProgram.Uniform("uEye"), 1, inEye.data());
    glUniform3fv(mGroundProgram.Uniform("uBackground"), 1, inBackground.data());
    glBindVertexArray(mGroundArray.Get());
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindVertexArray(0);
}

void DebugRenderer::Draw(const Eigen::Matrix4f& inViewProjection, const Eigen::Vector3f& inEye,
                         const Eigen::Vector3f& inLightDirection)
{
    if (!mLines.empty())
    {
        mLineProgram.Use();
        glUniformMatrix4fv(mLineProgram.Uniform("uViewProjection"), 1, GL_FALSE, inViewProjection.data());
        glBindBuffer(GL_ARRAY_BUFFER, mLineBuffer.Get());
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(mLines.size() * sizeof(float)), mLines.data(),
                     GL_STREAM_DRAW);
        glBindVertexArray(mLineArray.Get());
        glDrawArrays(GL_LINES, 0, GLsizei(mLines.size() / 7));
        glBindVertexArray(0);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        mLines.clear();
    }
    if (!mSpheres.empty())
    {
        mSphereProgram.Use();
        glUniformMatrix4fv(mSphereProgram.Uniform("uViewProjection"), 1, GL_FALSE, inViewProjection.data());
        glUniform3fv(mSphereProgram.Uniform("uEye"), 1, inEye.data());
        glUniform3fv(mSphereProgram.Uniform("uLightDirection"), 1, inLightDirection.data());
        glBindBuffer(GL_ARRAY_BUFFER, mSphereInstances.Get());
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(mSpheres.size() * sizeof(float)), mSpheres.data(),
                     GL_STREAM_DRAW);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        // Two passes: depth alone, then colour where a sphere is the front-most surface, blended over the
        // scene. Overlapping spheres then show one shell instead of stacking their tints, translucent spheres
        // still show the meshes inside, and opaque ones (alpha 1) come out as an ordinary depth-tested draw.
        glBindVertexArray(mSphereArray.Get());
        const GLsizei instances = GLsizei(mSpheres.size() / 8);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        glDrawElementsInstanced(GL_TRIANGLES, mSphereIndexCount, GL_UNSIGNED_INT, nullptr, instances);
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        glDepthMask(GL_FALSE);
        glDepthFunc(GL_LEQUAL);
        glDrawElementsInstanced(GL_TRIANGLES, mSphereIndexCount, GL_UNSIGNED_INT, nullptr, instances);
        glDepthFunc(GL_LESS);
        glBindVertexArray(0);
        glDepthMask(GL_TRUE);
        glDisable(GL_BLEND);
        mSpheres.clear();
    }
}

} // namespace bdt::demo
