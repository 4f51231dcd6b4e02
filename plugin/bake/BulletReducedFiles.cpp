// Bullet's reduced deformable data files: writer, validating reader, and a model from them.

#include <bdt/bake/BulletReducedFiles.h>
#include <bdt/bake/VibrationModes.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace bdt
{

namespace
{

void WriteArray(const std::filesystem::path& inPath, const double* inValues, std::size_t inCount)
{
    if (inCount > 0xffffffffu)
        throw Error(inPath.string() + ": more values than a uint32 count can say");
    std::FILE* file = std::fopen(inPath.c_str(), "wb");
    if (file == nullptr)
        throw Error(inPath.string() + ": cannot open for writing");
    const auto count = std::uint32_t(inCount);
    bool ok = std::fwrite(&count, sizeof(count), 1, file) == 1;
    ok = ok && (inCount == 0 || std::fwrite(inValues, sizeof(double), inCount, file) == inCount);
    if (std::fclose(file) != 0 || !ok)
        throw Error(inPath.string() + ": write failed");
}

/// A uint32 count then that many doubles; the file's size must be exactly that.
std::vector<double> ReadArray(const std::filesystem::path& inPath)
{
    const std::string name = inPath.filename().string();
    std::error_code error;
    if (!std::filesystem::is_regular_file(inPath, error))
        throw Error(name + ": missing");
    const auto size = std::filesystem::file_size(inPath, error);
    std::ifstream file(inPath, std::ios::binary);
    std::uint32_t count = 0;
    if (error || !file || size < 4 || !file.read(reinterpret_cast<char*>(&count), 4))
        throw Error(name + ": truncated (no count)");
    if (size != 4 + std::uintmax_t(count) * 8)
        throw Error(name + ": holds " + std::to_string((size - 4) / 8) + " values, its count says " +
                    std::to_string(count));
    std::vector<double> values(count);
    if (count > 0 && !file.read(reinterpret_cast<char*>(values.data()), std::streamsize(count) * 8))
        throw Error(name + ": cannot be read");
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw Error(name + ": value " + std::to_string(i) + " is not finite");
    return values;
}

BulletReducedFiles FilesOfModes(TetMesh inMesh, const VibrationModes& inModes,
                                const Eigen::SparseMatrix<double>& inMass)
{
    BulletReducedFiles files;
    files.mesh = std::move(inMesh);
    files.modes = inModes.shapes;
    files.eigenvalues = inModes.eigenvalues;
    files.reducedStiffness = inModes.eigenvalues;
    files.nodeMass = LumpedNodeMass(inMass);
    return files;
}

} // namespace

BulletReducedFiles MakeBulletFiles(const LatticeModes& inModes, double inScale)
{
    return FilesOfModes(LatticeTets(inModes.grid, inModes.elasticity.nodeOfLattice,
                                    inModes.elasticity.latticeOfNode, inScale),
                        inModes, inModes.elasticity.mass);
}

BulletReducedFiles MakeBulletFiles(const TetModes& inModes, double inScale)
{
    TetMesh mesh = inModes.mesh;
    for (Vec3d& p : mesh.positions)
        p *= inScale;
    return FilesOfModes(std::move(mesh), inModes, inModes.elasticity.mass);
}

void SaveBulletReducedFiles(const BulletReducedFiles& inFiles, const std::string& inDirectory)
{
    const std::size_t nodes = inFiles.mesh.positions.size();
    const auto modes = std::size_t(inFiles.modes.cols());
    if (std::size_t(inFiles.modes.rows()) != 3 * nodes || inFiles.eigenvalues.size() != modes ||
        inFiles.reducedStiffness.size() != modes || inFiles.nodeMass.size() != nodes)
        throw Error("Bullet reduced deformable data of inconsistent sizes");
    const std::filesystem::path directory(inDirectory);
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    if (!std::filesystem::is_directory(directory, error))
        throw Error("cannot create the folder");
    // Column-major 3n × M is exactly Bullet's layout: mode after mode, 3n values each.
    WriteArray(directory / "modes.bin", inFiles.modes.data(), std::size_t(inFiles.modes.size()));
    WriteArray(directory / "eigenvalues.bin", inFiles.eigenvalues.data(), modes);
    WriteArray(directory / "K_r_diag_mat.bin", inFiles.reducedStiffness.data(), modes);
    WriteArray(directory / "M_diag_mat.bin", inFiles.nodeMass.data(), nodes);
    const std::filesystem::path mesh = directory / cBulletMeshFile;
    try
    {
        SaveVtkTets(inFiles.mesh, mesh.string());
    }
    catch (const Error& e)
    {
        throw Error(mesh.string() + ": " + e.what());
    }
}

BulletReducedFiles LoadBulletReducedFiles(const std::string& inDirectory)
{
    const std::filesystem::path directory(inDirectory);
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error))
        throw Error("not a folder");
    std::filesystem::path vtk = directory / cBulletMeshFile;
    if (!std::filesystem::is_regular_file(vtk, error))
    {
        std::vector<std::filesystem::path> found;
        for (const auto& entry : std::filesystem::directory_iterator(directory, error))
            if (entry.path().extension() == ".vtk")
                found.push_back(entry.path());
        if (found.size() != 1)
            throw Error(found.empty() ? "no .vtk tetrahedral mesh in the folder"
                                      : "several .vtk files and no mesh.vtk in the folder");
        vtk = found.front();
    }
    BulletReducedFiles files;
    try
    {
        files.mesh = LoadTetMesh(vtk.string());
    }
    catch (const Error& e)
    {
        throw Error(vtk.filename().string() + ": " + e.what());
    }
    const std::size_t nodes = files.mesh.positions.size();
    files.eigenvalues = ReadArray(directory / "eigenvalues.bin");
    files.reducedStiffness = ReadArray(directory / "K_r_diag_mat.bin");
    files.nodeMass = ReadArray(directory / "M_diag_mat.bin");
    const std::vector<double> modes = ReadArray(directory / "modes.bin");
    const std::size_t count = files.reducedStiffness.size();
    if (files.nodeMass.size() != nodes)
        throw Error("M_diag_mat.bin: " + std::to_string(files.nodeMass.size()) + " masses for " +
                    std::to_string(nodes) + " mesh nodes");
    if (files.eigenvalues.size() != count)
        throw Error("eigenvalues.bin: " + std::to_string(files.eigenvalues.size()) +
                    " values, K_r_diag_mat.bin " + std::to_string(count));
    if (modes.size() != count * 3 * nodes)
        throw Error("modes.bin: " + std::to_string(modes.size()) + " values, expected " +
                    std::to_string(count) + " modes of 3 x " + std::to_string(nodes) + " nodes");
    for (std::size_t i = 0; i < nodes; ++i)
        if (files.nodeMass[i] < 0.0)
            throw Error("M_diag_mat.bin: node " + std::to_string(i) + " has a negative mass");
    for (std::size_t j = 0; j < count; ++j)
        if (files.reducedStiffness[j] < 0.0)
            throw Error("K_r_diag_mat.bin: mode " + std::to_string(j) + " has a negative stiffness");
    files.modes =
        Eigen::Map<const Eigen::MatrixXd>(modes.data(), Eigen::Index(3 * nodes), Eigen::Index(count));
    return files;
}

Model MakeModelFromBulletFiles(const BulletReducedFiles& inFiles, std::uint32_t inModes, double inAlpha,
                               double inBeta)
{
    const auto available = std::uint32_t(inFiles.modes.cols());
    const std::uint32_t modes = inModes == 0 ? available : inModes;
    if (modes > available)
        throw Error(std::to_string(modes) + " modes asked, the files hold " + std::to_string(available));
    TetBoundary boundary = ExtractTetBoundary(inFiles.mesh);
    std::vector<float> basis = NodalSurfaceBasis(inFiles.modes, modes, boundary.nodeOfVertex, 1.0);
    return FinishModalModel(std::move(boundary.positions), std::move(boundary.triangles), std::move(basis),
                            std::span(inFiles.reducedStiffness).first(modes), inAlpha, inBeta);
}

} // namespace bdt
