// Generated from docs/openapi.yaml by deploy/embed-openapi.sh (make openapi). Do not edit.

extension OpenAPIDocument {
    static let yaml = ##"""
        openapi: 3.1.0
        info:
          title: Flipbox control API
          version: "1"
          summary: Flip channels, read the player's state, drive the overlays and watch events.
          description: |
            Served by `flipbox play` at `--http HOST:PORT` (default 127.0.0.1:8642). The same document is
            served as JSON at `/api/v1/openapi.json`.

            Authentication: with a token (`--token`, required off loopback) every path but `/` needs
            `Authorization: Bearer TOKEN`; the event stream, the snapshot and thumbnails also take
            `?token=TOKEN`. Without a token, requests must name the box in `Host` (loopback, the listen
            host, or an `--allow-host` name) and state-changing requests from web pages must come from the
            box's own origin; others get 403 (docs/security.md).

            Every GET endpoint also answers HEAD (same status and headers, no body). Every error is JSON:
            `{"error": "what went wrong and what to do"}`. Limits: request line 8 KB (414), headers
            16 KB (431), body 64 KB (413), 32 event streams (503), 16 flips in flight (503), 16 still
            pictures being made (503), 256 connections at once and 64 from one address other than
            loopback (503, answered on the raw connection), a request head within 10 s (408, then the
            connection closes).
        servers:
          - url: http://127.0.0.1:8642
        security:
          - {}
          - bearer: []
        paths:
          /:
            get:
              operationId: webRemote
              summary: The web remote (an HTML page that calls this API from the same origin).
              security:
                - {}
              responses:
                "200":
                  description: The page.
                  content:
                    text/html:
                      schema:
                        type: string
          /guide:
            get:
              operationId: webGuide
              summary: The web remote's guide (an HTML page; channels with live pictures and two hours of programmes).
              security:
                - {}
              responses:
                "200":
                  description: The page.
                  content:
                    text/html:
                      schema:
                        type: string
          /api/v1/status:
            get:
              operationId: status
              summary: The channel on screen, the output format, uptime, the last flip and process resources.
              responses:
                "200":
                  description: The status.
                  content:
                    application/json:
                      schema:
                        $ref: "#/components/schemas/Status"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/output:
            get:
              operationId: output
              summary: What the display showed since the start, gaps between frames over 100 ms and runs of one unchanging channel picture (a frozen picture, or a source sending a still), the recent ones.
              responses:
                "200":
                  description: The display's record.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [framesShown, framesRepeated, longestGapMs, gapsOver100Ms, gaps, longestStillSeconds, stills]
                        properties:
                          framesShown:
                            type: integer
                          framesRepeated:
                            type: integer
                            description: Frames repeated because no new frame came for two frame periods.
                          longestGapMs:
                            type: number
                          gapsOver100Ms:
                            type: integer
                          gaps:
                            type: array
                            description: The recent gaps over 100 ms (at most 64), oldest first.
                            items:
                              type: object
                              required: [at, ms, channel]
                              properties:
                                at:
                                  type: string
                                  format: date-time
                                ms:
                                  type: number
                                channel:
                                  type: [string, "null"]
                          longestStillSeconds:
                            type: number
                          stills:
                            type: array
                            description: The recent runs of one unchanging channel picture of 0.5 s or more (at most 64), oldest first, then the one in progress.
                            items:
                              type: object
                              required: [channel, from, seconds, ongoing]
                              properties:
                                channel:
                                  type: [string, "null"]
                                from:
                                  type: string
                                  format: date-time
                                seconds:
                                  type: number
                                ongoing:
                                  type: boolean
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/channels:
            get:
              operationId: channels
              summary: Every channel with its live state.
              responses:
                "200":
                  description: The lineup.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [channels]
                        properties:
                          channels:
                            type: array
                            items:
                              $ref: "#/components/schemas/ChannelStatus"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/flip/next:
            post:
              operationId: flipNext
              summary: Flips to the next channel in the flip scope; answers with the flip's result.
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/flip/previous:
            post:
              operationId: flipPrevious
              summary: Flips to the previous channel in the flip scope.
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/recall:
            post:
              operationId: recall
              summary: Flips back to the last channel.
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/tune/{number}:
            post:
              operationId: tune
              summary: Tunes a channel by number (7, 9.1).
              parameters:
                - $ref: "#/components/parameters/ChannelNumber"
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/tune/id/{id}:
            post:
              operationId: tuneID
              summary: Tunes a channel by its id.
              parameters:
                - name: id
                  in: path
                  required: true
                  schema:
                    type: string
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/flip-scope/{scope}:
            post:
              operationId: setFlipScope
              summary: Sets which channels next and previous visit.
              parameters:
                - name: scope
                  in: path
                  required: true
                  schema:
                    type: string
                    enum: [all, favourites, group]
              responses:
                "200":
                  description: The scope now in force.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [scope]
                        properties:
                          scope:
                            type: string
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/snapshot.png:
            get:
              operationId: snapshot
              summary: The output picture as shown, as PNG.
              parameters:
                - name: width
                  in: query
                  description: Scale to this width (the height follows); never wider than the output.
                  schema:
                    type: integer
                    minimum: 16
                    maximum: 7680
                - $ref: "#/components/parameters/QueryToken"
              responses:
                "200":
                  description: The picture.
                  content:
                    image/png:
                      schema:
                        type: string
                        contentMediaType: image/png
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/channels/{number}/thumbnail.jpg:
            get:
              operationId: thumbnail
              summary: A JPEG of a warm channel's latest keyframe.
              parameters:
                - $ref: "#/components/parameters/ChannelNumber"
                - name: width
                  in: query
                  schema:
                    type: integer
                    minimum: 16
                    maximum: 7680
                - $ref: "#/components/parameters/QueryToken"
              responses:
                "200":
                  description: The picture.
                  content:
                    image/jpeg:
                      schema:
                        type: string
                        contentMediaType: image/jpeg
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/overlay/banner:
            post:
              operationId: showBanner
              summary: Shows the info banner.
              parameters:
                - name: seconds
                  in: query
                  description: How long; 0 until dismissed; the configured time when absent.
                  schema:
                    type: number
                    minimum: 0
                    maximum: 3600
                - name: form
                  in: query
                  description: short (channel, now and next, rating) or long (also the programme's description).
                  schema:
                    type: string
                    enum: [short, long]
                    default: short
              responses:
                "200":
                  $ref: "#/components/responses/Banner"
                default:
                  $ref: "#/components/responses/Error"
            delete:
              operationId: hideBanner
              summary: Hides the info banner.
              responses:
                "200":
                  $ref: "#/components/responses/Banner"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/audio:
            get:
              operationId: audio
              summary: The audio tracks of the channel on screen and the one playing.
              responses:
                "200":
                  $ref: "#/components/responses/Audio"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/audio/{track}:
            post:
              operationId: selectAudio
              summary: Plays another audio track of the channel on screen, remembered for the channel.
              description: |
                `next`, a track number from 1 (as `GET /api/v1/audio` numbers them), or a language:
                an ISO 639 code (`deu`, `de`, `ger`) or an English name (`German`). The new track
                starts where the sound is; the picture plays on. 400: not a track; 404: the channel has
                no such track or language; 409: no channel is playing, or it has no sound.
              parameters:
                - name: track
                  in: path
                  required: true
                  schema:
                    type: string
              responses:
                "200":
                  $ref: "#/components/responses/Audio"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/subtitles:
            get:
              operationId: subtitles
              summary: The subtitle tracks of the channel on screen (DVB subtitles, teletext pages, closed captions, WebVTT) and the one shown.
              responses:
                "200":
                  $ref: "#/components/responses/Subtitles"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/subtitles/{track}:
            post:
              operationId: selectSubtitles
              summary: Shows other subtitles on the channel on screen (or none), remembered for the channel.
              description: |
                `next` (the tracks in turn, then off), `off`, `cc` (the closed captions the video
                carries), a track number from 1 (as `GET /api/v1/subtitles` numbers them), or a
                language: an ISO 639 code (`deu`, `de`, `ger`) or an English name (`German`). 400: not
                a track; 404: the channel has no such track, language or captions (the message lists
                what it has); 409: no channel is playing.
              parameters:
                - name: track
                  in: path
                  required: true
                  schema:
                    type: string
              responses:
                "200":
                  $ref: "#/components/responses/Subtitles"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/pip:
            post:
              operationId: openPiP
              summary: Opens the picture-in-picture window (settings from the query or a JSON body).
              parameters:
                - name: channel
                  in: query
                  schema:
                    $ref: "#/components/schemas/ChannelNumber"
                - name: corner
                  in: query
                  schema:
                    $ref: "#/components/schemas/Corner"
                - name: size
                  in: query
                  description: Fraction of the output width.
                  schema:
                    $ref: "#/components/schemas/PiPSize"
              requestBody:
                required: false
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        channel:
                          anyOf:
                            - $ref: "#/components/schemas/ChannelNumber"
                            - type: integer
                              minimum: 0
                              maximum: 999999
                        corner:
                          $ref: "#/components/schemas/Corner"
                        size:
                          $ref: "#/components/schemas/PiPSize"
              responses:
                "200":
                  $ref: "#/components/responses/PiP"
                default:
                  $ref: "#/components/responses/Error"
            delete:
              operationId: closePiP
              summary: Closes the picture-in-picture window.
              responses:
                "200":
                  $ref: "#/components/responses/PiP"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/pip/swap:
            post:
              operationId: swapPiP
              summary: Swaps the main picture and the PiP window; answers like a flip.
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/pip/tune/{number}:
            post:
              operationId: tunePiP
              summary: Tunes the PiP window to a channel.
              parameters:
                - $ref: "#/components/parameters/ChannelNumber"
              responses:
                "200":
                  $ref: "#/components/responses/PiP"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/multiview:
            post:
              operationId: openMultiview
              summary: Opens the multiview mosaic.
              parameters:
                - name: grid
                  in: query
                  schema:
                    type: integer
                    enum: [2, 3, 4]
              responses:
                "200":
                  $ref: "#/components/responses/Multiview"
                default:
                  $ref: "#/components/responses/Error"
            delete:
              operationId: closeMultiview
              summary: Closes the multiview.
              responses:
                "200":
                  $ref: "#/components/responses/Multiview"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/multiview/move/{direction}:
            post:
              operationId: moveMultiview
              summary: Moves the multiview highlight.
              parameters:
                - name: direction
                  in: path
                  required: true
                  schema:
                    type: string
                    enum: [up, down, left, right]
              responses:
                "200":
                  $ref: "#/components/responses/Multiview"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/multiview/select:
            post:
              operationId: selectMultiview
              summary: Tunes the highlighted channel and closes the multiview; answers like a flip.
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/guide:
            get:
              operationId: guide
              summary: Programmes on in from..to (default the next 3 hours, at most 14 days) per channel.
              parameters:
                - name: from
                  in: query
                  description: ISO 8601 time with a zone, e.g. 2026-11-22T20:00:00+01:00; default now.
                  schema:
                    type: string
                - name: to
                  in: query
                  description: ISO 8601 time with a zone; default from + 3 h.
                  schema:
                    type: string
                - name: channels
                  in: query
                  description: Channel numbers, comma separated; default every channel.
                  schema:
                    type: string
              responses:
                "200":
                  description: The guide (404 when the box has none).
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [from, to, channels]
                        properties:
                          from:
                            type: string
                          to:
                            type: string
                          channels:
                            type: array
                            items:
                              type: object
                              required: [number, id, name, programmes]
                              properties:
                                number:
                                  type: string
                                id:
                                  type: string
                                name:
                                  type: string
                                guideChannel:
                                  type: string
                                catchupDays:
                                  type: integer
                                  description: How many days back the channel's provider archive reaches (catch-up); absent without one.
                                programmes:
                                  type: array
                                  items:
                                    type: object
                                    required: [start, stop, title, categories, ratings]
                                    properties:
                                      start:
                                        type: string
                                      stop:
                                        type: string
                                      title:
                                        type: string
                                      subTitle:
                                        type: string
                                      description:
                                        type: string
                                      categories:
                                        type: array
                                        items:
                                          type: string
                                      episode:
                                        type: object
                                        additionalProperties:
                                          type: string
                                      icon:
                                        type: string
                                      ratings:
                                        type: array
                                        items:
                                          type: object
                                          required: [value]
                                          properties:
                                            system:
                                              type: string
                                            value:
                                              type: string
                                      starRating:
                                        type: string
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/guide/refresh:
            post:
              operationId: refreshGuide
              summary: Imports the guide again; 409 while a refresh runs, 502 when a source fails (the old guide stays), 404 without a guide.
              responses:
                "200":
                  description: What the import read.
                  content:
                    application/json:
                      schema:
                        type: object
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/guide/grid:
            get:
              operationId: guideGridStatus
              summary: The on-screen guide, as the remote's g key opens it; open or not, the focused channel and programme.
              responses:
                "200":
                  $ref: "#/components/responses/GuideGrid"
                default:
                  $ref: "#/components/responses/Error"
            post:
              operationId: openGuideGrid
              summary: Opens the on-screen guide on the programme on now on the channel on screen (the channel plays on underneath).
              responses:
                "200":
                  $ref: "#/components/responses/GuideGrid"
                default:
                  $ref: "#/components/responses/Error"
            delete:
              operationId: closeGuideGrid
              summary: Closes the on-screen guide.
              responses:
                "200":
                  $ref: "#/components/responses/GuideGrid"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/guide/grid/move/{move}:
            post:
              operationId: moveGuideGrid
              summary: Moves the guide's focus; 400 for another move, 409 when the guide is not open.
              parameters:
                - name: move
                  in: path
                  required: true
                  schema:
                    type: string
                    enum: [up, down, left, right, page-up, page-down]
              responses:
                "200":
                  $ref: "#/components/responses/GuideGrid"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/guide/grid/select:
            post:
              operationId: selectGuideGrid
              summary: Tunes the focused channel and closes the guide; answers like a flip (409 when the guide is not open).
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/guide/grid/record:
            post:
              operationId: recordFromGuideGrid
              summary: |
                Records the focused programme (the record or green key), or with series=true every
                programme of its title, new episodes only (the yellow key). The answer says what was
                scheduled, as the screen does. 409 when the guide is not open; 400 for an ended programme.
              parameters:
                - name: series
                  in: query
                  schema:
                    type: boolean
              responses:
                "200":
                  description: What was scheduled.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [scheduled]
                        properties:
                          scheduled:
                            type: string
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/recording-list:
            get:
              operationId: recordingList
              summary: Whether the on-screen list of recordings is open, how many it lists and the focused one.
              responses:
                "200":
                  $ref: "#/components/responses/RecordingList"
            post:
              operationId: openRecordingList
              summary: Opens the on-screen list of recordings over the picture (newest first; closes the guide).
              responses:
                "200":
                  $ref: "#/components/responses/RecordingList"
            delete:
              operationId: closeRecordingList
              summary: Closes the list.
              responses:
                "200":
                  $ref: "#/components/responses/RecordingList"
          /api/v1/recording-list/move/{move}:
            post:
              operationId: moveRecordingList
              summary: Moves the list's focus; 400 for another move, 409 when the list is not open.
              parameters:
                - name: move
                  in: path
                  required: true
                  schema:
                    type: string
                    enum: [up, down, page-up, page-down]
              responses:
                "200":
                  $ref: "#/components/responses/RecordingList"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/recording-list/select:
            post:
              operationId: selectRecordingList
              summary: |
                Plays the focused recording where it was left and closes the list (the timeshift status); on a conflict
                choice, takes it and answers what was done with the list as it is now. 409 when the list is not open or
                the choice is no longer offered, 404 when it is empty.
              responses:
                "200":
                  description: The timeshift status of the recording now playing, or the conflict choice taken.
                  content:
                    application/json:
                      schema:
                        oneOf:
                          - $ref: "#/components/schemas/Timeshift"
                          - type: object
                            required: [settled, list]
                            properties:
                              settled:
                                type: string
                              list:
                                type: object
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/guide/grid/remind:
            post:
              operationId: remindFromGuideGrid
              summary: A reminder for the focused programme; 409 when the guide is not open or the programme has started.
              responses:
                "200":
                  description: The reminder.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [id, title, start]
                        properties:
                          id:
                            type: integer
                          channel:
                            $ref: "#/components/schemas/Channel"
                          title:
                            type: string
                          start:
                            type: string
                            format: date-time
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/timeshift:
            get:
              operationId: timeshiftStatus
              summary: Where the channel on screen stands in time; 409 when nothing is on screen, or timeshift is off (`--timeshift`) and the channel has no provider archive (catch-up).
              responses:
                "200":
                  $ref: "#/components/responses/Timeshift"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/timeshift/pause:
            post:
              operationId: timeshiftPause
              summary: Pauses the picture and the sound (the channel goes on filling the buffer). 409 when timeshift is off or nothing is buffered; 503 when no decoder can start.
              responses:
                "200":
                  $ref: "#/components/responses/Timeshift"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/timeshift/resume:
            post:
              operationId: timeshiftResume
              summary: Plays on from where the picture was paused. 409 when timeshift is off or nothing is buffered; 503 when no decoder can start.
              responses:
                "200":
                  $ref: "#/components/responses/Timeshift"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/timeshift/toggle:
            post:
              operationId: timeshiftToggle
              summary: Pauses when playing, plays when paused. 409 when timeshift is off or nothing is buffered; 503 when no decoder can start.
              responses:
                "200":
                  $ref: "#/components/responses/Timeshift"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/timeshift/live:
            post:
              operationId: timeshiftLive
              summary: Back to the live edge. 409 when timeshift is off or nothing is buffered; 503 when no decoder can start.
              responses:
                "200":
                  $ref: "#/components/responses/Timeshift"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/timeshift/seek:
            post:
              operationId: timeshiftSeek
              summary: |
                Moves to a keyframe by a signed amount, to a time, or to the previous/next marker; past the
                live edge is live, before the buffer is its start (the answer's adjustment says so, with the
                range held). On a channel whose provider keeps its past (catch-up attributes), a seek
                before the buffer (or any seek back when timeshift is off) plays the provider's archive
                from that moment (archive true in the answer), and a seek forward from it joins the buffer
                or live; 409 when the moment is older than the archive keeps or the channel's stream is
                shared (recorded, served), 502 when the archive does not
                play (the picture then goes back to where it was). On a channel with linear-breaks, a
                forward seek over a break not yet watched lands at its start. Exactly one of by, to and
                marker; 400 otherwise; 409 when there is no marker that way.
              parameters:
                - name: by
                  in: query
                  description: A signed time, e.g. -30s, -1m30s, +10s, -90 (seconds); at most a day.
                  schema:
                    type: string
                - name: to
                  in: query
                  description: An ISO 8601 time, e.g. 2026-11-22T20:15:00Z.
                  schema:
                    type: string
                - name: marker
                  in: query
                  description: previous or next (programme starts from the guide and markers set over the API).
                  schema:
                    type: string
                    enum: [previous, next]
              responses:
                "200":
                  $ref: "#/components/responses/Timeshift"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/timeshift/markers:
            post:
              operationId: timeshiftAddMarker
              summary: Sets a marker on the channel on screen's buffer (201). 400 for a bad at or name; 409 when the time is outside the buffer or timeshift is off.
              parameters:
                - name: at
                  in: query
                  description: An ISO 8601 time within the buffer; where the picture is when left out.
                  schema:
                    type: string
                - name: name
                  in: query
                  description: 1 to 100 characters; "Marker N" when left out.
                  schema:
                    type: string
              responses:
                "201":
                  description: The marker.
                  content:
                    application/json:
                      schema:
                        $ref: "#/components/schemas/TimeshiftMarker"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/timeshift/markers/{id}:
            delete:
              operationId: timeshiftRemoveMarker
              summary: Removes a marker set over the API (204). 400 when the id is not a number, 404 when there is no such marker.
              parameters:
                - name: id
                  in: path
                  required: true
                  schema:
                    type: integer
              responses:
                "204":
                  description: Removed.
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/unlock:
            post:
              operationId: unlock
              summary: |
                Unlocks locked content with the parental PIN (the channel on screen, or "channel"), until
                the programme ends. 403 for a wrong PIN, 429 with Retry-After after too many (5 free, then
                waits doubling from 30 s), 409 when the channel is not locked or no PIN is set.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [pin]
                      properties:
                        pin:
                          type: string
                          description: 4 to 8 digits.
                        channel:
                          type: string
                          description: A channel number; default the channel on screen.
              responses:
                "200":
                  description: Unlocked; the channel on screen plays again.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [channel, until]
                        properties:
                          channel:
                            $ref: "#/components/schemas/Channel"
                          until:
                            type: string
                            description: When the unlock ends (ISO 8601).
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/reminders:
            get:
              operationId: reminders
              summary: The reminders set, earliest first (404 without a guide).
              responses:
                "200":
                  description: The reminders.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [reminders]
                        properties:
                          reminders:
                            type: array
                            items:
                              $ref: "#/components/schemas/Reminder"
                default:
                  $ref: "#/components/responses/Error"
            post:
              operationId: addReminder
              summary: |
                Reminds of a programme: when it starts on another channel, "TITLE starts now on N — OK to
                watch" is proposed. 404 for an unknown channel or programme, 409 when it has started.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [channel, programme]
                      properties:
                        channel:
                          type: string
                          description: A channel number.
                        programme:
                          type: string
                          description: The programme's start (ISO 8601), as /api/v1/guide gives it.
              responses:
                "201":
                  description: The reminder.
                  content:
                    application/json:
                      schema:
                        $ref: "#/components/schemas/Reminder"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/reminders/{id}:
            delete:
              operationId: removeReminder
              summary: Removes a reminder (404 when there is none).
              parameters:
                - name: id
                  in: path
                  required: true
                  schema:
                    type: integer
              responses:
                "204":
                  description: Removed.
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/catchup:
            post:
              operationId: catchup
              summary: |
                Flips to a channel and plays it from a programme's start (or any moment) out of its
                provider's archive. 404 for an unknown channel, 409 for a channel without an archive or a
                moment outside it, 502 when the archive does not play.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [channel]
                      properties:
                        channel:
                          type: string
                        programme:
                          type: string
                          description: The programme's start (ISO 8601), as /api/v1/guide gives it.
                        at:
                          type: string
                          description: Any moment (ISO 8601), instead of programme.
              responses:
                "200":
                  $ref: "#/components/responses/Timeshift"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/recordings:
            get:
              operationId: recordings
              summary: Every recording (scheduled, recording, done, partial, failed, cancelled) by start, and the schedule's conflicts (404 when the box keeps no recordings).
              responses:
                "200":
                  description: The recordings and conflicts.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [recordings, conflicts]
                        properties:
                          recordings:
                            type: array
                            items:
                              $ref: "#/components/schemas/Recording"
                          conflicts:
                            type: array
                            items:
                              $ref: "#/components/schemas/RecordingConflict"
                default:
                  $ref: "#/components/responses/Error"
            post:
              operationId: addRecording
              summary: |
                Records a programme of the guide (channel and its start, or its guide id), with padding, or
                a time range of a channel exactly as asked. A programme a rule records already answers with
                that recording. 404 for an unknown channel or a programme not in the guide, 400 for a bad body.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        channel:
                          type: string
                          description: A channel number (with programme, or with start and end).
                        programme:
                          type: string
                          description: The programme's start (ISO 8601), as /api/v1/guide gives it.
                        programmeId:
                          type: string
                          description: A programme's guide id (alone).
                        start:
                          type: string
                          description: A time range's start (ISO 8601).
                        end:
                          type: string
                          description: A time range's end (ISO 8601), at most 24 h after its start.
                        title:
                          type: string
                          description: A time range's title (names the file).
                        priority:
                          type: integer
                          minimum: -1000
                          maximum: 1000
                        padding:
                          $ref: "#/components/schemas/Padding"
              responses:
                "201":
                  description: The recording as scheduled (or in progress).
                  content:
                    application/json:
                      schema:
                        $ref: "#/components/schemas/Recording"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/recordings/{id}:
            delete:
              operationId: removeRecording
              summary: Cancels a scheduled recording, stops one in progress keeping what was written, or deletes an ended one with its files (404 when there is none).
              parameters:
                - name: id
                  in: path
                  required: true
                  schema:
                    type: string
              responses:
                "204":
                  description: Removed.
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/recordings/{id}/play:
            post:
              operationId: playRecording
              summary: |
                Plays a recording on screen (its channel's place in the lineup; no stream of its pool is
                taken): where it was left, from its programme's start, or from a moment. The timeshift
                endpoints then pause and seek in it; live goes back to its channel. Its ad breaks are
                in the answer's `breaks`, their starts and ends in `markers` (kind `break`). 404 for an
                unknown recording, 409 for one with nothing written yet.
              parameters:
                - name: id
                  in: path
                  required: true
                  schema:
                    type: string
                - name: from
                  in: query
                  required: false
                  description: resume (the default), start, or an ISO 8601 time.
                  schema:
                    type: string
                - name: skip-breaks
                  in: query
                  required: false
                  description: |
                    true to jump over each ad break when the picture reaches its start (once per break;
                    a break the viewer seeks into plays). Default false; any other value is 400.
                  schema:
                    type: string
                    enum: ["true", "false"]
              responses:
                "200":
                  $ref: "#/components/responses/Timeshift"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/recording-conflicts:
            get:
              operationId: recordingConflicts
              summary: The schedule's conflicts over the pools, each with the recordings involved and its options.
              responses:
                "200":
                  description: The conflicts.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [conflicts]
                        properties:
                          conflicts:
                            type: array
                            items:
                              $ref: "#/components/schemas/RecordingConflict"
                default:
                  $ref: "#/components/responses/Error"
            post:
              operationId: settleRecordingConflict
              summary: |
                Takes one of a conflict's options, as listed: drop cancels that recording (or stops it, keeping what was
                written); other-channel schedules the programme on the other channel, then cancels the one it replaces.
                409 when the option is no longer offered, 400 for a body that is no option.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      $ref: "#/components/schemas/ConflictOption"
              responses:
                "200":
                  description: The recording scheduled instead (null for a drop).
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [scheduled]
                        properties:
                          scheduled:
                            oneOf:
                              - $ref: "#/components/schemas/Recording"
                              - type: "null"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/recording-rules:
            get:
              operationId: recordingRules
              summary: The series rules.
              responses:
                "200":
                  description: The rules.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [rules]
                        properties:
                          rules:
                            type: array
                            items:
                              $ref: "#/components/schemas/RecordingRule"
                default:
                  $ref: "#/components/responses/Error"
            post:
              operationId: addRecordingRule
              summary: |
                Records every programme of a title (exact, or a regular expression with match pattern),
                on a channel or any, on some days and in a time window, new episodes only, keeping the
                newest N. Answers with the recordings it made now and what the scheduler said (a rule
                that matches nothing is said, not refused). 400 with where for a pattern that does not compile.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [title]
                      properties:
                        id:
                          type: string
                          description: The rule's id (letters, digits, - _ .); one is made when left out. The same id replaces a rule.
                        title:
                          type: string
                        match:
                          type: string
                          enum: [exact, pattern]
                        channel:
                          type: string
                        days:
                          type: array
                          items:
                            type: string
                            enum: [mon, tue, wed, thu, fri, sat, sun]
                        window:
                          $ref: "#/components/schemas/TimeWindow"
                        newOnly:
                          type: boolean
                        keep:
                          type: integer
                          minimum: 1
                          maximum: 10000
                        priority:
                          type: integer
                          minimum: -1000
                          maximum: 1000
                        padding:
                          $ref: "#/components/schemas/Padding"
              responses:
                "201":
                  description: The rule, its recordings and the scheduler's notes.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [rule, recordings, notes]
                        properties:
                          rule:
                            $ref: "#/components/schemas/RecordingRule"
                          recordings:
                            type: array
                            items:
                              $ref: "#/components/schemas/Recording"
                          notes:
                            type: array
                            items:
                              type: string
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/recording-rules/{id}:
            delete:
              operationId: removeRecordingRule
              summary: Removes a rule; the scheduled recordings only it asked for go with it (404 when there is none).
              parameters:
                - name: id
                  in: path
                  required: true
                  schema:
                    type: string
              responses:
                "204":
                  description: Removed.
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/proposal/accept:
            post:
              operationId: acceptProposal
              summary: Watches the proposed programme (a flip; its result and status). 409 when nothing is proposed.
              responses:
                "200":
                  $ref: "#/components/responses/FlipCompleted"
                default:
                  $ref: "#/components/responses/FlipNotCompleted"
          /api/v1/proposal/dismiss:
            post:
              operationId: dismissProposal
              summary: Takes the proposal down. 409 when nothing is proposed.
              responses:
                "200":
                  description: Dismissed.
                  content:
                    application/json:
                      schema:
                        type: object
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/clips:
            get:
              operationId: clips
              summary: Every clip cut from a timeshift buffer, newest first (409 when the box has no clip library).
              responses:
                "200":
                  description: The clips.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [clips]
                        properties:
                          clips:
                            type: array
                            items:
                              $ref: "#/components/schemas/ClipJob"
                default:
                  $ref: "#/components/responses/Error"
            post:
              operationId: startClip
              summary: |
                Cuts a clip of a channel's timeshift buffer, remuxed without re-encoding, from the keyframe
                at or before `from`; with `exact`, from `from` to `to` to the frame, re-encoding only the
                partial GOP at each end. Answers at once with the job; its progress follows as `clip`
                events. 400 for a bad body or a range outside the buffer (the message gives the buffer's
                range), 403 when the channel or a programme on it in the range is locked by the parental
                rules and not unlocked with the PIN (`POST /api/v1/unlock`), 404 for an unknown channel,
                409 when the channel has no buffer or an exact cut of its codec is not possible here.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [channel, from]
                      properties:
                        channel:
                          type: string
                          description: A channel number (a JSON number is taken too).
                        from:
                          type: string
                          description: "`now`, a time before the live edge (`-60s`, `-1m30s`, `-90`) or an ISO 8601 time."
                        to:
                          type: string
                          description: As `from`; default `now`.
                        format:
                          type: string
                          enum: [mp4, mkv, ts]
                          description: Default mp4.
                        exact:
                          type: boolean
                          description: Cut at `from` and `to` to the frame (the partial GOPs at the ends re-encoded); default false, cut at keyframes.
              responses:
                "202":
                  description: The job, writing.
                  content:
                    application/json:
                      schema:
                        $ref: "#/components/schemas/ClipJob"
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/clips/{id}:
            get:
              operationId: downloadClip
              summary: The clip's file once written (an attachment); 202 with the job while it is written, 409 when it failed, 404 when there is no such clip.
              parameters:
                - name: id
                  in: path
                  required: true
                  schema:
                    type: string
              responses:
                "200":
                  description: The file (MP4, Matroska or MPEG-TS).
                  content:
                    video/mp4:
                      schema:
                        type: string
                        format: binary
                    video/x-matroska:
                      schema:
                        type: string
                        format: binary
                    video/mp2t:
                      schema:
                        type: string
                        format: binary
                "202":
                  description: Still being written.
                  content:
                    application/json:
                      schema:
                        $ref: "#/components/schemas/ClipJob"
                default:
                  $ref: "#/components/responses/Error"
            delete:
              operationId: deleteClip
              summary: Removes a clip and its file (stops it first while it is written); 404 when there is none.
              parameters:
                - name: id
                  in: path
                  required: true
                  schema:
                    type: string
              responses:
                "204":
                  description: Removed.
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/events:
            get:
              operationId: events
              summary: Every player event as server-sent events (flip-started, flip-retargeted, flip-completed, channel-state, card-shown, card-hidden, lock-shown, lock-hidden, programme-changed, proposal-shown, proposal-hidden, timeshift, clip, recording-started, recording-stopped, recording-failed, recording-deleted, recording-conflict).
              parameters:
                - $ref: "#/components/parameters/QueryToken"
              responses:
                "200":
                  description: An endless event stream with a keepalive comment every 15 s.
                  content:
                    text/event-stream:
                      schema:
                        type: string
                default:
                  $ref: "#/components/responses/Error"
          /api/v1/openapi.json:
            get:
              operationId: openAPI
              summary: This document as JSON.
              responses:
                "200":
                  description: The document.
                  content:
                    application/json:
                      schema:
                        type: object
                default:
                  $ref: "#/components/responses/Error"
          /metrics:
            get:
              operationId: metrics
              summary: Flip latency, cards, channel states, sources' stalls, reconnects and failovers, the display's frames, gaps and still pictures, caches, decoders, timeshift and serving figures, HTTP answers and process figures in Prometheus text format.
              responses:
                "200":
                  description: The exposition.
                  content:
                    text/plain:
                      schema:
                        type: string
                default:
                  $ref: "#/components/responses/Error"
        components:
          securitySchemes:
            bearer:
              type: http
              scheme: bearer
          parameters:
            ChannelNumber:
              name: number
              in: path
              required: true
              description: A channel number such as 7 or 9.1.
              schema:
                $ref: "#/components/schemas/ChannelNumber"
            QueryToken:
              name: token
              in: query
              description: The bearer token, for URLs a browser opens without headers.
              schema:
                type: string
          responses:
            Error:
              description: An error with a message saying what went wrong and what to do.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Error"
            FlipCompleted:
              description: The flip completed.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/FlipResult"
            FlipNotCompleted:
              description: |
                The flip did not complete (the body is its result: superseded 409, unknown channel 404,
                timed out 504, locked 403, source failed 502), or the request was refused (an error body:
                400, 401, 403, 405, 413, 503).
              content:
                application/json:
                  schema:
                    anyOf:
                      - $ref: "#/components/schemas/FlipResult"
                      - $ref: "#/components/schemas/Error"
            Audio:
              description: The audio tracks of the channel on screen and the one playing.
              content:
                application/json:
                  schema:
                    type: object
                    required: [channel, tracks, playing]
                    properties:
                      channel:
                        oneOf:
                          - $ref: "#/components/schemas/Channel"
                          - type: "null"
                      tracks:
                        type: array
                        items:
                          $ref: "#/components/schemas/AudioTrack"
                      playing:
                        description: The number of the track playing (from 1); null without tracks.
                        type: [integer, "null"]
            Subtitles:
              description: The subtitle tracks of the channel on screen and the one shown.
              content:
                application/json:
                  schema:
                    type: object
                    required: [channel, tracks, showing]
                    properties:
                      channel:
                        oneOf:
                          - $ref: "#/components/schemas/Channel"
                          - type: "null"
                      tracks:
                        type: array
                        items:
                          $ref: "#/components/schemas/SubtitleTrack"
                      showing:
                        description: The number of the track shown (from 1); null when subtitles are off.
                        type: [integer, "null"]
            Banner:
              description: The banner's state.
              content:
                application/json:
                  schema:
                    type: object
                    required: [shown]
                    properties:
                      shown:
                        type: boolean
                      channel:
                        $ref: "#/components/schemas/Channel"
                      form:
                        type: string
                        enum: [short, long]
                        description: The form on screen; absent when the banner is not up.
            PiP:
              description: The PiP window's state.
              content:
                application/json:
                  schema:
                    type: object
                    required: [open, corner, size]
                    properties:
                      open:
                        type: boolean
                      channel:
                        $ref: "#/components/schemas/Channel"
                      corner:
                        type: string
                      size:
                        type: number
            Multiview:
              description: The multiview's state.
              content:
                application/json:
                  schema:
                    type: object
                    required: [open, grid, channels]
                    properties:
                      open:
                        type: boolean
                      grid:
                        type: integer
                      channels:
                        type: array
                        items:
                          $ref: "#/components/schemas/Channel"
                      highlight:
                        $ref: "#/components/schemas/Channel"
            GuideGrid:
              description: The on-screen guide.
              content:
                application/json:
                  schema:
                    type: object
                    required: [open]
                    properties:
                      open:
                        type: boolean
                      channel:
                        $ref: "#/components/schemas/Channel"
                      programme:
                        type: string
                        description: The focused programme's title and time.
            Timeshift:
              description: Where the channel on screen stands in time.
              content:
                application/json:
                  schema:
                    $ref: "#/components/schemas/Timeshift"
            RecordingList:
              description: Whether the on-screen list of recordings is open, and what it focuses.
              content:
                application/json:
                  schema:
                    type: object
                    required: [open, count]
                    properties:
                      open:
                        type: boolean
                      count:
                        type: integer
                      focused:
                        type: string
                        description: The focused recording's id.
                      title:
                        type: string
                      choices:
                        type: integer
                        description: Conflict choices listed above the recordings.
                      choice:
                        type: string
                        description: The focused conflict choice, such as `Drop Film`.
          schemas:
            Timeshift:
              type: object
              required: [channel, live, paused, position, keyframes, bytesInMemory, disk, behind]
              properties:
                channel:
                  $ref: "#/components/schemas/ChannelNumber"
                live:
                  type: boolean
                paused:
                  type: boolean
                position:
                  type: string
                  description: The moment on screen (ISO 8601).
                bufferStart:
                  type: string
                  description: The oldest moment held (ISO 8601).
                liveEdge:
                  type: string
                  description: The newest moment held (ISO 8601).
                keyframes:
                  type: integer
                  description: Keyframes held (points a seek lands on).
                bytesInMemory:
                  type: integer
                  description: Bytes held in memory (never more than the memory cap while the disk refuses).
                disk:
                  type: string
                  enum: [ok, full, failed]
                  description: >-
                    Whether the buffer's older part goes to segment files: ok; full (no space left) or
                    failed (another write error) while the disk refuses, the buffer then keeping only what
                    fits in its memory cap and trying the disk again every 10 s.
                diskMessage:
                  type: string
                  description: While the disk refuses, what failed (the file, in its directory, and the reason) and what the buffer does meanwhile.
                behind:
                  type: number
                  description: Seconds behind live.
                markers:
                  type: array
                  description: The markers within the buffer, in time order.
                  items:
                    $ref: "#/components/schemas/TimeshiftMarker"
                breaks:
                  type: array
                  description: The breaks within the buffer, in time order.
                  items:
                    $ref: "#/components/schemas/TimeshiftBreak"
                catchup:
                  type: boolean
                  description: >-
                    Whether the channel's provider keeps its past (catch-up attributes): a seek before
                    bufferStart (or any seek back when timeshift is off) plays the provider's archive.
                archive:
                  type: boolean
                  description: Whether the picture comes from the provider's archive now.
                archiveStart:
                  type: string
                  description: The oldest moment the provider's archive keeps (ISO 8601), when its depth is known (catchup-days).
                recording:
                  type: object
                  description: Set while a recording plays back; bufferStart and liveEdge are then its span.
                  required: [id, title, growing, ended]
                  properties:
                    id:
                      type: string
                    title:
                      type: string
                    growing:
                      type: boolean
                      description: Still being written; its end moves on.
                    ended:
                      type: boolean
                      description: It played to its end and stands there, paused.
                adjustment:
                  type: object
                  description: On a seek's answer, when it landed elsewhere than asked.
                  required: [requested, reason, message]
                  properties:
                    requested:
                      type: string
                      description: The moment asked for (ISO 8601).
                    reason:
                      type: string
                      enum: [beforeBuffer, pastLive, unwatchedBreak]
                    message:
                      type: string
                      description: What happened, with the range the buffer holds.
            TimeshiftMarker:
              type: object
              required: [time, name, kind]
              properties:
                id:
                  type: integer
                  description: Markers set over the API only (what DELETE names).
                time:
                  type: string
                  description: ISO 8601.
                name:
                  type: string
                kind:
                  type: string
                  enum: [programme, chapter, set, break]
            TimeshiftBreak:
              type: object
              required: [start, end, watched, origin]
              properties:
                start:
                  type: string
                  description: ISO 8601.
                end:
                  type: string
                  description: ISO 8601.
                watched:
                  type: boolean
                  description: The viewer played it through (live or from the buffer); a watched break can be skipped.
                origin:
                  type: string
                  enum: [lineup, scte35]
            Error:
              type: object
              required: [error]
              properties:
                error:
                  type: string
            ChannelNumber:
              type: string
              pattern: "^[0-9]{1,6}(\\.[0-9]{1,6})?$"
            PiPSize:
              type: number
              minimum: 0.1
              maximum: 0.6
            Corner:
              type: string
              enum: [top-left, top-right, bottom-left, bottom-right]
            Channel:
              type: object
              required: [number, name, id]
              properties:
                number:
                  type: string
                name:
                  type: string
                id:
                  type: string
            FlipResult:
              type: object
              required: [ok, requestId, outcome, channel, latencyMs, path, error, failure, supersededBy, interstitialShown]
              properties:
                ok:
                  type: boolean
                requestId:
                  type: integer
                outcome:
                  type: string
                  enum: [completed, failed, superseded]
                channel:
                  oneOf:
                    - $ref: "#/components/schemas/Channel"
                    - type: "null"
                latencyMs:
                  type: [number, "null"]
                path:
                  type: [string, "null"]
                  enum: [hot, warm, cold, null]
                error:
                  type: [string, "null"]
                failure:
                  type: [string, "null"]
                supersededBy:
                  type: [integer, "null"]
                interstitialShown:
                  type: boolean
            SubtitleTrack:
              type: object
              required: [track, language, languageName, name, format, page, showing]
              properties:
                track:
                  description: The track's number (from 1), as `POST /api/v1/subtitles/{track}` takes it.
                  type: integer
                language:
                  description: ISO 639-2/T code (`deu`), null when the stream names none (closed captions never do).
                  type: [string, "null"]
                languageName:
                  type: [string, "null"]
                name:
                  description: What the provider calls the track (an HLS rendition's `NAME`), null when it names none.
                  type: [string, "null"]
                format:
                  description: DVB subtitles, a teletext subtitle page, CEA-608/708 closed captions carried in the video, or an HLS channel's WebVTT rendition.
                  type: string
                  enum: [DVB, Teletext, CC1, WebVTT]
                page:
                  description: The teletext page (`888`), as the programme table names it; null for other tracks.
                  type: [integer, "null"]
                showing:
                  type: boolean
            AudioTrack:
              type: object
              required: [track, language, languageName, codec, channels, description, passthrough, playing]
              properties:
                track:
                  description: The track's number (from 1), as `POST /api/v1/audio/{track}` takes it.
                  type: integer
                language:
                  description: ISO 639-2/T code (`deu`), null when the stream names none.
                  type: [string, "null"]
                languageName:
                  type: [string, "null"]
                codec:
                  type: string
                  examples: [AAC, AAC (LATM), MPEG-1 Layer II, AC-3, E-AC-3]
                channels:
                  type: [integer, "null"]
                description:
                  description: |
                    Audio description: a voice that describes the picture (the stream's table marks it).
                    Chosen unasked only with the setting `audio-description: true`.
                  type: boolean
                passthrough:
                  description: |
                    The track reaches the receiver behind HDMI or S/PDIF as AC-3 in IEC 61937 bursts,
                    for it to decode (setting `audio-passthrough`: AC-3 as sent, E-AC-3 re-encoded);
                    false: it is decoded here.
                  type: boolean
                playing:
                  type: boolean
            Video:
              description: A channel's video as its stream says (null for radio, or until known).
              type: object
              required: [codec, width, height, fps, interlaced, colour, colorimetry, colourAssumed, hdr, peakLuminance]
              properties:
                codec:
                  type: string
                  examples: [H.264, HEVC, MPEG-2]
                width:
                  type: [integer, "null"]
                height:
                  type: [integer, "null"]
                fps:
                  type: [number, "null"]
                interlaced:
                  description: Interlaced (deinterlaced for the output).
                  type: boolean
                colour:
                  type: string
                  examples: [BT.601, BT.709, BT.2020, BT.2100 PQ, BT.2100 HLG]
                colorimetry:
                  description: GStreamer's name for the colours (bt709, bt2100-pq, 1:4:7:1).
                  type: string
                colourAssumed:
                  description: The stream does not say; taken by its size.
                  type: boolean
                hdr:
                  type: boolean
                peakLuminance:
                  description: The brightest light of the programme in cd/m², as its HDR metadata says (MaxCLL, else the mastering display's peak); HDR is tone-mapped from it. Null when the stream does not say.
                  type: [number, "null"]
            Status:
              type: object
              required: [channel, output, uptimeSeconds, lastFlip, pools]
              properties:
                video:
                  description: The video of the channel on screen.
                  anyOf:
                    - $ref: "#/components/schemas/Video"
                    - type: "null"
                audio:
                  description: Its audio tracks.
                  type: array
                  items:
                    $ref: "#/components/schemas/AudioTrack"
                subtitles:
                  description: Its subtitle tracks.
                  type: array
                  items:
                    $ref: "#/components/schemas/SubtitleTrack"
                radio:
                  description: The channel on screen has no video.
                  type: boolean
                channel:
                  oneOf:
                    - $ref: "#/components/schemas/Channel"
                    - type: "null"
                output:
                  type: object
                  required: [width, height, fps, sink]
                  properties:
                    width:
                      type: integer
                    height:
                      type: integer
                    fps:
                      type: integer
                    sink:
                      type: string
                uptimeSeconds:
                  type: integer
                lastFlip:
                  oneOf:
                    - $ref: "#/components/schemas/FlipResult"
                    - type: "null"
                now:
                  description: The programme on the channel now, from the guide (null without one).
                  anyOf:
                    - $ref: "#/components/schemas/ProgrammeSummary"
                    - type: "null"
                next:
                  description: The programme after it.
                  anyOf:
                    - $ref: "#/components/schemas/ProgrammeSummary"
                    - type: "null"
                locked:
                  description: Why the channel on screen is locked while its lock card is up (null otherwise).
                  type: [string, "null"]
                pools:
                  description: The pools of rationed streams (a tuner's, an IPTV account's), by name; empty when no source is rationed.
                  type: array
                  items:
                    type: object
                    required: [name, limit, limitOrigin, open, holders, attempts, refusals, endedByServer, heldBack, warmFlips, flips]
                    properties:
                      name:
                        description: The lineup's name for the pool, else the host and port of its sources.
                        type: string
                      limit:
                        description: Most streams at once; null while not known.
                        type: [integer, "null"]
                      limitOrigin:
                        description: Where the limit came from.
                        enum: [command line, lineup, told by the source, learned, null]
                      open:
                        description: Streams open now.
                        type: integer
                      holders:
                        description: Each open stream's channel and whom it is for, e.g. "5 (the screen)", "7 (warm)".
                        type: array
                        items:
                          type: string
                      attempts:
                        type: integer
                      refusals:
                        description: Streams the source refused because all were in use.
                        type: integer
                      endedByServer:
                        type: integer
                      heldBack:
                        description: Connections of warm channels held back, by the pool's allowance for connections nobody waits for or by the source's Retry-After.
                        type: integer
                      warmFlips:
                        type: integer
                      flips:
                        type: integer
                resources:
                  type: object
                  required: [pipelines, openFiles, fileLimit, residentBytes]
                  properties:
                    pipelines:
                      type: integer
                    openFiles:
                      type: integer
                    fileLimit:
                      type: integer
                    residentBytes:
                      type: integer
                    elements:
                      description: GStreamer elements that were in a pipeline and are not freed yet.
                      type: integer
                    heapInUseBytes:
                      description: C heap bytes the process holds (glibc mallinfo2); a leak grows this.
                      type: integer
                    heapFreeBytes:
                      description: C heap bytes freed but kept by the allocator; its retention grows this, not a leak.
                      type: integer
            ClipJob:
              type: object
              required: [id, channel, format, from, to, state, progress, created, fileName]
              properties:
                id:
                  type: string
                channel:
                  type: string
                format:
                  type: string
                  enum: [mp4, mkv, ts]
                exact:
                  type: boolean
                  description: Cut at the asked times rather than at keyframes.
                from:
                  type: string
                  description: The range asked for, resolved (ISO 8601).
                to:
                  type: string
                state:
                  type: string
                  enum: [writing, done, failed]
                progress:
                  type: number
                  description: 0 to 1.
                duration:
                  type: number
                  description: The clip's length in seconds (from the keyframe it starts at, or from `from` when exact), once done.
                bytes:
                  type: integer
                error:
                  type: string
                  description: Why it failed.
                created:
                  type: string
                writeSeconds:
                  type: number
                  description: Seconds from the request to the complete file.
                fileName:
                  type: string
                  description: The name the download suggests.
            Recording:
              type: object
              required: [id, channel, title, start, stop, paddedStart, paddedEnd, state, rules, oneOff, priority, bytes, parts, gaps, keep]
              properties:
                id:
                  type: string
                channel:
                  type: string
                channelName:
                  type: string
                title:
                  type: string
                subtitle:
                  type: string
                episode:
                  type: string
                  description: S01E02
                description:
                  type: string
                start:
                  type: string
                stop:
                  type: string
                paddedStart:
                  type: string
                paddedEnd:
                  type: string
                state:
                  type: string
                  enum: [scheduled, recording, done, partial, failed, cancelled]
                rules:
                  type: array
                  items:
                    type: string
                oneOff:
                  type: boolean
                priority:
                  type: integer
                file:
                  type: string
                  description: The file under the recordings directory.
                bytes:
                  type: integer
                parts:
                  type: array
                  items:
                    type: object
                    required: [number, start, bytes]
                    properties:
                      number:
                        type: integer
                      start:
                        type: string
                      end:
                        type: string
                      bytes:
                        type: integer
                gaps:
                  type: array
                  items:
                    type: object
                    required: [start, end, seconds, reason]
                    properties:
                      start:
                        type: string
                      end:
                        type: string
                      seconds:
                        type: number
                      reason:
                        type: string
                error:
                  type: string
                keep:
                  type: boolean
                note:
                  type: string
            RecordingConflict:
              type: object
              required: [pool, limit, start, end, recordings, notRecorded, options, message]
              properties:
                pool:
                  type: string
                limit:
                  type: integer
                start:
                  type: string
                end:
                  type: string
                recordings:
                  type: array
                  items:
                    type: string
                notRecorded:
                  type: array
                  items:
                    type: string
                options:
                  type: array
                  items:
                    $ref: "#/components/schemas/ConflictOption"
                message:
                  type: string
            ConflictOption:
              type: object
              description: Record the same programme on another channel (`other-channel`, with its channel and programme), or drop a recording.
              required: [kind, recording]
              properties:
                kind:
                  type: string
                  enum: [other-channel, drop]
                recording:
                  type: string
                channel:
                  type: string
                programme:
                  type: string
            RecordingRule:
              type: object
              required: [id, title, match, days, newOnly, priority, padding]
              properties:
                id:
                  type: string
                title:
                  type: string
                match:
                  type: string
                  enum: [exact, pattern]
                channel:
                  type: string
                days:
                  type: array
                  items:
                    type: string
                window:
                  $ref: "#/components/schemas/TimeWindow"
                newOnly:
                  type: boolean
                keep:
                  type: integer
                priority:
                  type: integer
                padding:
                  type: object
                  required: [before, after]
                  properties:
                    before:
                      type: number
                    after:
                      type: number
            Padding:
              type: object
              description: Durations such as "1m" or seconds; defaults 1 and 3 minutes.
              properties:
                before:
                  oneOf:
                    - type: string
                    - type: number
                after:
                  oneOf:
                    - type: string
                    - type: number
            TimeWindow:
              type: object
              required: [from, to]
              properties:
                from:
                  type: string
                  description: "19:00"
                to:
                  type: string
                  description: "23:00; before from wraps past midnight"
            Reminder:
              type: object
              required: [id, channel, title, start, stop]
              properties:
                id:
                  type: integer
                channel:
                  oneOf:
                    - $ref: "#/components/schemas/Channel"
                    - type: "null"
                title:
                  type: string
                start:
                  type: string
                stop:
                  type: string
            ProgrammeSummary:
              type: object
              required: [title, start, end]
              properties:
                title:
                  type: string
                start:
                  type: string
                end:
                  type: string
                description:
                  type: string
                rating:
                  type: string
            ChannelStatus:
              type: object
              required: [number, name, id, group, logo, state, detail, reason, sources, thumbnail, favourite, hidden, video, audio, subtitles, radio, now, next, locked]
              properties:
                now:
                  description: The programme on the channel now, from the guide (null without one).
                  anyOf:
                    - $ref: "#/components/schemas/ProgrammeSummary"
                    - type: "null"
                next:
                  description: The programme after it.
                  anyOf:
                    - $ref: "#/components/schemas/ProgrammeSummary"
                    - type: "null"
                locked:
                  description: Why the channel's content is locked now (parental rules or a locked channel; null when it is not).
                  type: [string, "null"]
                video:
                  anyOf:
                    - $ref: "#/components/schemas/Video"
                    - type: "null"
                audio:
                  description: The channel's audio tracks (empty until its ingest found them).
                  type: array
                  items:
                    $ref: "#/components/schemas/AudioTrack"
                subtitles:
                  description: The channel's subtitle tracks, then its closed captions (empty until its ingest found them).
                  type: array
                  items:
                    $ref: "#/components/schemas/SubtitleTrack"
                radio:
                  description: No video stream (a radio channel).
                  type: boolean
                number:
                  type: string
                name:
                  type: string
                id:
                  type: string
                group:
                  type: [string, "null"]
                logo:
                  type: [string, "null"]
                state:
                  type: string
                  enum: [cold, warm, hot, stalled, failed]
                detail:
                  type: string
                reason:
                  type: [string, "null"]
                sources:
                  type: integer
                thumbnail:
                  type: [string, "null"]
                favourite:
                  type: boolean
                hidden:
                  type: boolean
        """##
}
