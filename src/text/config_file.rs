//! ConfigFile
