#include "PaperCurtain.h"

#include <cmath>

namespace bdt::bench
{

ShapeMesh MakePaperCurtain()
{
    constexpr std::uint32_t columns = 49, rows = 125, tabRows = 59;
    constexpr double width = 1.0, height = 2.5, fold = 0.03, folds = 2.5;
    constexpr double dx = width / (columns - 1), dy = height / (rows - 1);
    constexpr double pi = 3.14159265358979323846;
    ShapeMesh mesh;
    const auto position = [&](double inX, std::uint32_t inRow) -> Vec3f
    {
        const double x = inX - 0.5 * width;
        return Vec3d(x, 0.5 * height - dy * inRow, fold * std::sin(2.0 * pi * folds * inX / width))
            .cast<float>();
    };
    for (std::uint32_t j = 0; j < rows; ++j)
        for (std::uint32_t i = 0; i < columns; ++i)
            mesh.positions.push_back(position(dx * i, j));
    const std::uint32_t tabFirst = columns * rows;
    for (std::uint32_t j = 0; j < tabRows; ++j)
        mesh.positions.push_back(position(width + dx, j));

    // A cell between two columns of vertices, rows j (top) and j + 1: two triangles, counter-clockwise seen
    // from +z (x right, y up).
    const auto cell = [&](std::uint32_t inTopLeft, std::uint32_t inTopRight, std::uint32_t inBottomLeft,
                          std::uint32_t inBottomRight)
    {
        mesh.triangles.push_back({inBottomLeft, inBottomRight, inTopRight});
        mesh.triangles.push_back({inBottomLeft, inTopRight, inTopLeft});
    };
    const auto at = [&](std::uint32_t inColumn, std::uint32_t inRow) { return inRow * columns + inColumn; };
    for (std::uint32_t j = 0; j + 1 < rows; ++j)
        for (std::uint32_t i = 0; i + 1 < columns; ++i)
            cell(at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
    for (std::uint32_t j = 0; j + 1 < tabRows; ++j)
        cell(at(columns - 1, j), tabFirst + j, at(columns - 1, j + 1), tabFirst + j + 1);
    return mesh;
}

} // namespace bdt::bench
