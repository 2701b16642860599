//! The on-device sentence embedding model (work in progress).
