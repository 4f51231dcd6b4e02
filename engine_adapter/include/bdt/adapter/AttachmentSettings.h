#pragma once

#include <cstdint>
#include <limits>

namespace bdt
{

/// How `World::Attach` holds a point to its target. Tuning: docs/TUNING.md#attachmentsettings.
struct AttachmentSettings
{
    /// N/m: infinite (the default) for a rigid pin, or finite and > 0 for a spring (it sags by m·g/stiffness).
    double stiffness = std::numeric_limits<double>::infinity();
    /// N·s/m, finite and >= 0: the spring's damping (a rigid pin has none to set).
    double damping = 0.0;
    /// A rigid pin's share of its position error corrected each step, in (0, 1] (Baumgarte, as Bullet's ERP).
    double erp = 0.2;
    /// Whether the two bodies still collide with each other (off: as Bullet's `addConstraint(c, true)`).
    bool collideConnected = false;
};

/// Names an attachment made by `World::Attach`; `None` names none.
enum class AttachmentId : std::uint64_t
{
    None = 0
};

} // namespace bdt
