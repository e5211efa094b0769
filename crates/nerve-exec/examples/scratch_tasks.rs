use nerve_exec::aio;
use std::time::{Duration, Instant};
fn main() {
    let n: usize = std::env::args().nth(1).map_or(5000, |s| s.parse().unwrap());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    for round in 0..16 {
        let nerve = round % 2 == 0;
        let t = Instant::now();
        rt.block_on(async {
            let hs: Vec<_> = (0..n)
                .map(|_| {
                    tokio::spawn(async move {
                        if nerve {
                            aio::sleep(Duration::from_millis(1)).await
                        } else {
                            tokio::time::sleep(Duration::from_millis(1)).await
                        }
                    })
                })
                .collect();
            for h in hs {
                let _ = h.await;
            }
        });
        println!(
            "{} {:?}",
            if nerve { "nerve" } else { "tokio" },
            t.elapsed()
        );
    }
}
