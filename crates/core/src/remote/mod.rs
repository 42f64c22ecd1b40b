//! Sessions that run on another machine and come home: a headless run on a CI runner records
//! where it ran ([`ran_on`]), pushes its own branch ([`push`]) and writes its record to one file
//! ([`export`]); at home, [`import`] checks that file and makes the session a local one, to be
//! reviewed and landed like any other.

pub mod dispatch;
pub mod export;
pub mod import;
pub mod push;
pub mod ran_on;
