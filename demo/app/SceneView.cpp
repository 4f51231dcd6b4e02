#include "SceneView.h"

#include "render/Palette.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btIDebugDraw.h>
#include <LinearMath/btTransformUtil.h>
#include <bdt/adapter/World.h>
#include <algorithm>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/model/ProceduralShapes.h>

namespace bdt::demo
{

namespace
{

Eigen::Vector3f ToEigen(const btVector3& inV)
{
    return {float(inV.x()), float(inV.y()), float(inV.z())};
}

// A rigid mesh (M = 0) of a built-in shape scaled to fit the unit box [-1, 1]³ in each axis it spans.
std::shared_ptr<const Model> UnitModel(EShape inShape, std::uint32_t inTriangles)
{
    ShapeMesh mesh = MakeShape(inShape, inTriangles);
    Eigen::AlignedBox3f box;
    for (const Vec3f& p : mesh.positions)
        box.extend(p);
    const Vec3f center = box.center();
    const Vec3f half = 0.5f * box.sizes();
    for (Vec3f& p : mesh.positions)
        p = (p - center).cwiseQuotient(half.cwiseMax(1e-6f));
    ModelData data;
    data.positions = std::move(mesh.positions);
    data.triangles = std::move(mesh.triangles);
    return std::make_shared<const Model>(Model::Create(std::move(data)));
}

// The unit box [-1, 1]³ with four vertices per face, so that its faces shade flat (M = 0).
std::shared_ptr<const Model> UnitBox()
{
    ModelData data;
    for (int axis = 0; axis < 3; ++axis)
        for (float side : {-1.0f, 1.0f})
        {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            const std::uint32_t first = std::uint32_t(data.positions.size());
            for (const auto& [a, b] : {std::pair{-1.0f, -1.0f}, {1.0f, -1.0f}, {1.0f, 1.0f}, {-1.0f, 1.0f}})
            {
                Vec3f p;
                p[axis] = side;
                p[u] = a;
                p[v] = b;
                data.positions.push_back(p);
            }
            // Counter-clockwise seen from outside: (u, v, axis) is right-handed.
            if (side > 0)
                data.triangles.insert(data.triangles.end(),
                                      {{first, first + 1, first + 2}, {first, first + 2, first + 3}});
            else
                data.triangles.insert(data.triangles.end(),
                                      {{first, first + 2, first + 1}, {first, first + 3, first + 2}});
        }
    return std::make_shared<const Model>(Model::Create(std::move(data)));
}

// Bullet's debug drawing (proxies, contacts) into the demo's batches.
class DebugDrawBridge : public btIDebugDraw
{
public:
    explicit DebugDrawBridge(DebugRenderer& ioRenderer) : mRenderer(ioRenderer) {}
    void drawLine(const btVector3& inFrom, const btVector3& inTo, const btVector3& inColor) override
    {
        mRenderer.AddLine(ToEigen(inFrom), ToEigen(inTo),
                          Eigen::Vector4f(inColor.x(), inColor.y(), inColor.z(), 1));
    }
    void drawSphere(const btVector3& inCenter, btScalar inRadius, const btVector3& inColor) override
    {
        mRenderer.AddSphere(ToEigen(inCenter), float(inRadius),
                            Eigen::Vector4f(inColor.x(), inColor.y(), inColor.z(), 0.45f));
    }
    void drawContactPoint(const btVector3& inPoint, const btVector3& inNormal, btScalar, int,
                          const btVector3& inColor) override
    {
        const Eigen::Vector4f color(inColor.x(), inColor.y(), inColor.z(), 1.0f);
        mRenderer.AddLine(ToEigen(inPoint), ToEigen(inPoint + 0.08f * inNormal), color);
        mRenderer.AddSphere(ToEigen(inPoint), 0.008f, color);
    }
    void reportErrorWarning(const char*) override {}
    void draw3dText(const btVector3&, const char*) override {}
    void setDebugMode(int inMode) override { mMode = inMode; }
    int getDebugMode() const override { return mMode; }

private:
    DebugRenderer& mRenderer;
    int mMode = DBG_DrawContactPoints;
};

// A warm palette for deformable bodies, cool grey-blue for rigid ones.
Eigen::Vector4f BodyColor(std::size_t inIndex, bool inDeformable, bool inPicked)
{
    if (inPicked)
        return {1.0f, 0.85f, 0.2f, 1.0f};
    if (!inDeformable)
        return {0.45f, 0.55f, 0.7f, 1.0f};
    static const Eigen::Vector4f palette[] = {{0.80f, 0.30f, 0.22f, 1}, {0.85f, 0.55f, 0.20f, 1},
                                              {0.35f, 0.60f, 0.35f, 1}, {0.75f, 0.70f, 0.55f, 1},
                                              {0.55f, 0.35f, 0.60f, 1}, {0.30f, 0.55f, 0.70f, 1}};
    // Hashed, so that bodies created in a grid (a row of 18 chairs, say) do not form stripes of one colour.
    const std::uint32_t hash = std::uint32_t(inIndex) * 2654435761u;
    return palette[(hash >> 16) % std::size(palette)];
}

Eigen::Matrix<float, 3, 4> ToMatrix(const Pose& inPose, double inScale)
{
    Eigen::Matrix<float, 3, 4> m;
    m.leftCols<3>() = (inScale * inPose.rotation).cast<float>();
    m.col(3) = inPose.translation.cast<float>();
    return m;
}

// `inTransform` with its basis columns scaled by `inScale` (per axis), as rows of a 3×4 model-to-world matrix.
Eigen::Matrix<float, 3, 4> ToMatrix(const btTransform& inTransform, const Eigen::Vector3f& inScale)
{
    Eigen::Matrix<float, 3, 4> m;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            m(r, c) = float(inTransform.getBasis()[r][c]) * inScale[c];
    m.col(3) = ToEigen(inTransform.getOrigin());
    return m;
}

// Where a Bullet rigid body was at the start of the last step of `inStep` seconds: its transform integrated back
// by its velocities. Bullet integrates the transform with the solved velocities (exponential map), so this
// undoes the step unless its angular motion clamp cut the rotation.
btTransform StepStart(const btCollisionObject& inObject, double inStep)
{
    const btRigidBody* rigid = btRigidBody::upcast(&inObject);
    if (rigid == nullptr || inStep <= 0.0)
        return inObject.getWorldTransform();
    btTransform start;
    btTransformUtil::integrateTransform(inObject.getWorldTransform(), -rigid->getLinearVelocity(),
                                        -rigid->getAngularVelocity(), btScalar(inStep), start);
    return start;
}

} // namespace

Eigen::Vector3f TightnessColor(float inRatio)
{
    return HeatColor((inRatio - 1.0f) / 0.44f);
}

SceneView::SceneView()
    : mUnitSphere(UnitModel(EShape::Sphere, 1200)), mUnitBox(UnitBox()),
      mMeshProgram(std::make_unique<ShaderProgram>(ShaderProgram::Build("deform.vert", "lit.frag"))),
      mDebug(std::make_unique<DebugRenderer>())
{
}

SceneView::ModelEntry& SceneView::EntryFor(const Model* inModel, std::shared_ptr<const void> inOwner)
{
    ModelEntry& entry = mRenderers[inModel];
    if (!entry.renderer)
    {
        entry.owner = std::move(inOwner);
        // Aliasing: the renderer's model pointer keeps its owner (an asset, or the primitive) alive.
        entry.renderer =
            std::make_unique<DeformedMeshRenderer>(std::shared_ptr<const Model>(entry.owner, inModel));
    }
    return entry;
}

void SceneView::GatherInstances(SampleWorld& ioWorld, const Frustum& inFrustum, const ViewOptions& inOptions,
                                const btRigidBody* inPicked)
{
    const Frustum& frustum = inFrustum;
    for (auto& [model, entry] : mRenderers)
        entry.instances.clear();
    btCollisionObjectArray& objects = ioWorld.Dynamics().getCollisionObjectArray();
    std::size_t deformableIndex = 0;
    for (int i = 0; i < objects.size(); ++i)
    {
        btCollisionObject* object = objects[i];
        const btCollisionShape* shape = object->getCollisionShape();
        const bool picked = object == inPicked;
        if (const DeformableShape* deformable = AsDeformable(shape))
        {
            ++mStats.bodies;
            const std::size_t index = deformableIndex++;
            const DeformedBody body = deformable->QueryView(object->getWorldTransform());
            const UpdatedSphere root = body.state->Sphere(0);
            const Vec3d center =
                body.pose.Apply(body.scale * Vec3d(root.center[0], root.center[1], root.center[2]));
            if (inOptions.cull && !frustum.Intersects(center.cast<float>(), float(body.scale * root.radius)))
            {
                ++mStats.culled;
                continue;
            }
            const Model* model = &deformable->Asset().GetModel();
            ModelEntry& entry = EntryFor(model, deformable->AssetPtr());
            const btRigidBody* rigid = btRigidBody::upcast(object);
            const World& deformables = ioWorld.Deformables();
            entry.instances.push_back(
                {ToMatrix(body.pose, body.scale), deformable->State().Q(), BodyColor(index, true, picked),
                 ToMatrix(deformables.PreviousMeshTransform(rigid), Eigen::Vector3f::Constant(float(body.scale))),
                 deformables.PreviousQ(rigid)});
            continue;
        }
        const Model* unit = nullptr;
        Eigen::Vector3f halfExtents;
        if (shape->getShapeType() == SPHERE_SHAPE_PROXYTYPE)
        {
            unit = mUnitSphere.get();
            halfExtents.setConstant(float(static_cast<const btSphereShape*>(shape)->getRadius()));
        }
        else if (shape->getShapeType() == BOX_SHAPE_PROXYTYPE)
        {
            unit = mUnitBox.get();
            halfExtents = ToEigen(static_cast<const btBoxShape*>(shape)->getHalfExtentsWithMargin());
        }
        else
            continue; // the ground plane is the grid; other shapes are not drawn
        ++mStats.bodies;
        const btTransform& transform = object->getWorldTransform();
        const Eigen::Vector3f origin = ToEigen(transform.getOrigin());
        if (inOptions.cull && !frustum.Intersects(origin, halfExtents.norm()))
        {
            ++mStats.culled;
            continue;
        }
        ModelEntry& entry =
            EntryFor(unit, unit == mUnitSphere.get() ? std::shared_ptr<const void>(mUnitSphere)
                                                     : std::shared_ptr<const void>(mUnitBox));
        entry.instances.push_back({ToMatrix(transform, halfExtents), {}, BodyColor(0, false, picked),
                                   ToMatrix(StepStart(*object, inOptions.stepSeconds), halfExtents), {}});
    }
}

void SceneView::DrawInstances(const Eigen::Matrix4f& inViewProjection, const Eigen::Vector3f& inEye,
                              const Eigen::Vector3f& inLight, const ViewOptions& inOptions)
{
    const Eigen::Matrix4f& viewProjection = inViewProjection;
    const Eigen::Vector3f& eye = inEye;
    const Eigen::Vector3f& light = inLight;
    if (inOptions.meshes)
    {
        mMeshProgram->Use();
        glUniformMatrix4fv(mMeshProgram->Uniform("uViewProjection"), 1, GL_FALSE, viewProjection.data());
        glUniform3fv(mMeshProgram->Uniform("uEye"), 1, eye.data());
        glUniform3fv(mMeshProgram->Uniform("uLightDirection"), 1, light.data());
        glUniform1f(mMeshProgram->Uniform("uDisplacementRange"),
                    inOptions.displacement ? inOptions.displacementRange : 0.0f);
        glUniform1f(mMeshProgram->Uniform("uMotionRange"),
                    inOptions.motion ? inOptions.motionRange * inOptions.stepSeconds : 0.0f);
        glDisable(GL_CULL_FACE); // open meshes (the curtain) show both sides
        for (auto& [model, entry] : mRenderers)
        {
            entry.renderer->Draw(*mMeshProgram, entry.instances);
            mStats.drawn += entry.instances.size();
            mStats.frameUploadBytes += entry.instances.empty() ? 0 : entry.renderer->Stats().lastFrameBytes;
        }
    }
    for (const auto& [model, entry] : mRenderers)
    {
        mStats.cpuDeformedVertices += entry.renderer->Stats().cpuDeformedVertices;
        mStats.meshBytes += entry.renderer->Stats().meshBytes;
    }
    mStats.models = mRenderers.size();
}

void SceneView::Render(SampleWorld& ioWorld, const OrbitCamera& inCamera, int inWidth, int inHeight,
                       const ViewOptions& inOptions, const btRigidBody* inPicked,
                       const SceneDecoration* inDecoration)
{
    mStats = ViewStats();
    const float aspect = float(inWidth) / float(std::max(inHeight, 1));
    const Eigen::Matrix4f viewProjection = inCamera.Projection(aspect) * inCamera.View();
    const Eigen::Vector3f eye = inCamera.Eye();
    const Eigen::Vector3f light = Eigen::Vector3f(0.4f, 1.0f, 0.3f).normalized();
    const Frustum frustum(viewProjection);

    glViewport(0, 0, inWidth, inHeight);
    glClearColor(std::pow(cBackground[0], 1 / 2.2f), std::pow(cBackground[1], 1 / 2.2f),
                 std::pow(cBackground[2], 1 / 2.2f), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    mDebug->DrawGround(viewProjection, eye, 0.0f, 300.0f,
                       Eigen::Vector3f(cBackground[0], cBackground[1], cBackground[2]));

    GatherInstances(ioWorld, frustum, inOptions, inPicked);
    if (inDecoration != nullptr)
    {
        for (const SampleMesh& mesh : inDecoration->meshes)
        {
            ++mStats.sampleMeshes;
            ++mStats.bodies;
            EntryFor(mesh.model.get(), mesh.model).instances.push_back({ToMatrix(mesh.pose, 1.0), mesh.q, mesh.color, std::nullopt, {}});
        }
        for (const SampleLine& line : inDecoration->lines)
            mDebug->AddLine(line.from, line.to, line.color);
    }

    DrawInstances(viewProjection, eye, light, inOptions);
    if (inOptions.spheres)
        AddSphereView(ioWorld, frustum, inOptions);
    if (inOptions.proxies || inOptions.contacts)
    {
        DebugDrawBridge bridge(*mDebug);
        DebugDrawSettings options;
        options.spheres = false;
        options.proxies = inOptions.proxies;
        options.contacts = inOptions.contacts;
        ioWorld.Deformables().DebugDraw(bridge, options);
    }
    mStats.spheres = mDebug->SphereCount();
    mStats.lines = mDebug->LineCount();
    mDebug->Draw(viewProjection, eye, light);
}

const std::vector<std::uint32_t>& SceneView::LevelNodes(const BDTree& inTree, std::uint32_t inLevel)
{
    std::vector<std::uint32_t>& nodes = mLevelNodes[{&inTree, inLevel}];
    if (nodes.empty())
        for (std::uint32_t node = 0; node < inTree.NodeCount(); ++node)
        {
            const BDTreeNode& n = inTree.Node(node);
            if (n.level == inLevel || (n.level < inLevel && n.IsLeaf()))
                nodes.push_back(node);
        }
    return nodes;
}

const BDAabbTree& SceneView::BoxesOf(const std::shared_ptr<const BDTree>& inTree)
{
    auto& boxes = mBoxTrees[inTree.get()];
    if (!boxes)
        boxes = std::make_unique<const BDAabbTree>(BDAabbTree::Build(inTree));
    return *boxes;
}

const DistanceHierarchy& SceneView::RegionsOf(const std::shared_ptr<const BDTree>& inTree)
{
    auto& regions = mRegionTrees[inTree.get()];
    if (!regions)
        regions = std::make_unique<const DistanceHierarchy>(DistanceHierarchy::Build(inTree));
    return *regions;
}

void SceneView::AddBound(const Vec3d& inCenter, const Vec3d& inHalfExtents, const Mat3d* inAxes, float inGrowth,
                         const ViewOptions& inOptions)
{
    mStats.sphereTightnessMax = std::max(mStats.sphereTightnessMax, inGrowth);
    ++mStats.bounds;
    // The palette is in display (sRGB) values; the shader shades in linear light.
    const Eigen::Vector3f rgb = inOptions.tightness ? TightnessColor(inGrowth) : Eigen::Vector3f(0.7f, 0.7f, 0.7f);
    const Eigen::Vector3f linear = ToLinear(rgb);
    const Eigen::Vector4f colour(linear.x(), linear.y(), linear.z(), inOptions.sphereAlpha);
    if (inAxes == nullptr)
    {
        mDebug->AddSphere(inCenter.cast<float>(), float(inHalfExtents.x()), colour);
        return;
    }
    // The 12 edges of the box: from each corner with a negative coordinate along an axis, to its neighbour.
    const Eigen::Vector4f opaque(colour.x(), colour.y(), colour.z(), 1.0f);
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < 4; ++k)
        {
            Vec3d corner;
            corner[axis] = -inHalfExtents[axis];
            corner[(axis + 1) % 3] = (k & 1 ? 1.0 : -1.0) * inHalfExtents[(axis + 1) % 3];
            corner[(axis + 2) % 3] = (k & 2 ? 1.0 : -1.0) * inHalfExtents[(axis + 2) % 3];
            Vec3d other = corner;
            other[axis] = inHalfExtents[axis];
            mDebug->AddLine((inCenter + *inAxes * corner).cast<float>(), (inCenter + *inAxes * other).cast<float>(), opaque);
        }
}

void SceneView::AddSphereView(SampleWorld& ioWorld, const Frustum& inFrustum, const ViewOptions& inOptions)
{
    const std::uint32_t level = std::uint32_t(std::max(inOptions.sphereLevel, 0));
    double growthSum = 0.0;
    AlignedVector<float> qq;
    for (btRigidBody* body : ioWorld.Deformables().Bodies())
    {
        if (mStats.bounds >= inOptions.maxSpheres)
            break;
        const DeformableShape* shape = World::Shape(body);
        const DeformedBody view = shape->QueryView(body->getWorldTransform());
        TreeState& state = *view.state;
        const std::shared_ptr<const BDTree>& tree = shape->Asset().TreePtr();
        const Model& model = tree->GetModel();
        const std::span<const float> q = state.Q();
        const Mat3d& axes = view.pose.rotation;
        if (inOptions.boundView == EBoundView::Boxes)
        {
            qq.resize(8 * q.size());
            MakeBoxUpdateInput(q, qq.data());
        }
        else if (inOptions.boundView == EBoundView::DistanceHierarchy)
        {
            mDeformed.resize(model.VertexCount());
            for (std::size_t v = 0; v < mDeformed.size(); ++v)
                mDeformed[v] = model.DeformedPosition(v, q).cast<float>();
            mStats.boundViewDeformedVertices += mDeformed.size();
        }
        for (std::uint32_t node : LevelNodes(*tree, level))
        {
            if (mStats.bounds >= inOptions.maxSpheres)
                break;
            Vec3d center = Vec3d::Zero();
            Vec3d half = Vec3d::Zero();
            float growth = 1.0f;
            switch (inOptions.boundView)
            {
            case EBoundView::Spheres:
            {
                const UpdatedSphere sphere = state.Sphere(node);
                center = Vec3d(sphere.center[0], sphere.center[1], sphere.center[2]);
                half.setConstant(sphere.radius);
                growth = sphere.radius / std::max(state.Proxies().Row(node)[3], 1e-30f);
                break;
            }
            case EBoundView::Boxes:
            {
                const float* row = BoxesOf(tree).Row(node);
                UpdatedBox box;
                UpdateBox(row, qq.data(), state.ModeCount(), box);
                center = Vec3d(box.center[0], box.center[1], box.center[2]);
                half = Vec3d(box.halfExtents[0], box.halfExtents[1], box.halfExtents[2]);
                for (int a = 0; a < 3; ++a)
                    growth = std::max(growth, box.halfExtents[a] / std::max(row[4 + a], 1e-30f));
                break;
            }
            case EBoundView::DistanceHierarchy:
            {
                const DistanceHierarchy& regions = RegionsOf(tree);
                const DistanceRegion& region = regions.Region(node);
                center = mDeformed[region.centralVertex].cast<double>();
                const float radius = regions.Radius(node, mDeformed);
                half.setConstant(radius);
                growth = radius / std::max(region.restRadius, 1e-30f);
                break;
            }
            }
            center = view.pose.Apply(view.scale * center);
            half *= view.scale;
            if (!inFrustum.Intersects(center.cast<float>(), float(half.norm())))
                continue;
            growthSum += double(growth);
            AddBound(center, half, inOptions.boundView == EBoundView::Boxes ? &axes : nullptr, growth, inOptions);
        }
    }
    if (mStats.bounds > 0)
        mStats.sphereTightnessMean = float(growthSum / double(mStats.bounds));
}

} // namespace bdt::demo
