//! The console's TCP listener, with a cap on the connections it holds at once: a process on this
//! machine that opens connection after connection and says nothing (no token needed for that)
//! would otherwise take the daemon's file handles, and with them every session's logs and
//! sockets. Past the cap, new connections wait in the system's queue until one ends.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How many connections the console holds at once.
pub(crate) const MAX_CONNECTIONS: usize = 64;

/// A listener that holds at most [`MAX_CONNECTIONS`] connections.
pub(crate) struct Capped {
    inner: TcpListener,
    slots: Arc<Semaphore>,
}

impl Capped {
    /// `inner`, capped.
    pub(crate) fn new(inner: TcpListener) -> Self {
        Self {
            inner,
            slots: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
        }
    }
}

/// A connection, and the slot it holds until it ends.
pub(crate) struct Slotted {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
}

/// The address a connection comes from, for the handlers (`ConnectInfo<Remote>`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Remote(pub(crate) SocketAddr);

impl Connected<IncomingStream<'_, Capped>> for Remote {
    fn connect_info(stream: IncomingStream<'_, Capped>) -> Self {
        Self(*stream.remote_addr())
    }
}

impl Listener for Capped {
    type Io = Slotted;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let Ok(slot) = Arc::clone(&self.slots).acquire_owned().await else {
            unreachable!("the console's slots are never closed")
        };
        loop {
            match self.inner.accept().await {
                Ok((stream, remote)) => {
                    return (
                        Slotted {
                            stream,
                            _slot: slot,
                        },
                        remote,
                    );
                }
                Err(error) => {
                    // Out of file handles, say: wait rather than spin.
                    tracing::warn!(%error, "the console could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

impl AsyncRead for Slotted {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(context, buffer)
    }
}

impl AsyncWrite for Slotted {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(context, bytes)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(context, buffers)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(context)
    }

    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(context)
    }
}
