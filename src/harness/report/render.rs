//! The report as Markdown (a CI job summary), one self-contained HTML page (styles and plots
//! inline: nothing is fetched at view time), and JSON. Text comes from minijinja templates
//! (`templates/`), plots from plotters' SVG backend.

use anyhow::{Context, Result};
use minijinja::{Environment, context};
use plotters::prelude::*;
use serde::Serialize;

use super::libfuzzer_log::Sample;
use super::{NightlyReport, Run};

const HTML: &str = include_str!("templates/report.html");
const MARKDOWN: &str = include_str!("templates/summary.md");

/// The report as pretty JSON, ending in a newline.
pub fn json(report: &NightlyReport) -> String {
    let mut text = serde_json::to_string_pretty(report).expect("a report always serialises");
    text.push('\n');
    text
}

pub fn markdown(report: &NightlyReport) -> Result<String> {
    render("summary.md", MARKDOWN, report, Vec::new())
}

pub fn html(report: &NightlyReport) -> Result<String> {
    let plots = report.runs.iter().map(plots).collect::<Result<Vec<_>>>()?;
    render("report.html", HTML, report, plots)
}

/// The two plots of one run, as inline SVG documents.
#[derive(Debug, Serialize)]
struct Plots {
    coverage: String,
    execs_per_second: String,
}

fn plots(run: &Run) -> Result<Plots> {
    let samples = &run.stats.samples;
    Ok(Plots {
        coverage: plot(
            &format!("{}: coverage (edges)", run.record.target),
            samples,
            |s| s.coverage,
        )?,
        execs_per_second: plot(
            &format!("{}: executions per second", run.record.target),
            samples,
            |s| s.execs_per_second,
        )?,
    })
}

/// A line plot of `value` over the run's seconds.
fn plot(title: &str, samples: &[Sample], value: impl Fn(&Sample) -> u64) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (560, 280)).into_drawing_area();
        root.fill(&WHITE).context("plot")?;
        let max_x = samples.iter().map(|s| s.seconds).fold(1.0, f64::max);
        let max_y = samples.iter().map(&value).max().unwrap_or(0).max(1) as f64 * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..max_x, 0.0..max_y)
            .context("plot")?;
        chart
            .configure_mesh()
            .x_desc("seconds")
            .draw()
            .context("plot")?;
        chart
            .draw_series(LineSeries::new(
                samples.iter().map(|s| (s.seconds, value(s) as f64)),
                BLUE.stroke_width(2),
            ))
            .context("plot")?;
        root.present().context("plot")?;
    }
    Ok(svg)
}

fn render(name: &str, template: &str, report: &NightlyReport, plots: Vec<Plots>) -> Result<String> {
    let mut env = Environment::new();
    // A Markdown table cell: one line, no column separator.
    env.add_filter("cell", |text: String| {
        text.replace('|', "\\|").replace('\n', " ")
    });
    env.add_template(name, template)
        .with_context(|| format!("template {name}"))?;
    let total_artifacts: usize = report.findings.iter().map(|f| f.count).sum();
    env.get_template(name)
        .and_then(|t| {
            t.render(context! {
                report => report,
                plots => plots,
                total_artifacts => total_artifacts,
            })
        })
        .with_context(|| format!("rendering {name}"))
}
